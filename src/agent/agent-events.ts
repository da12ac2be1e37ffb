/**
 * The agent's lifecycle events: one zod discriminated union. It types what a run publishes
 * (RunEvents.emit takes nothing else), what `onEvent` listeners receive, and renders the event
 * list of the /doc guide, so the three cannot drift apart.
 */
import { z } from "zod";
import { runStatusSchema, usageSchema } from "./session-schemas.js";

const ids = {
  sessionId: z.string(),
  runId: z.string(),
  taskId: z.string().optional().describe("When the run is a task"),
};
const errorShape = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

const event = <T extends string, S extends z.ZodRawShape>(type: T, summary: string, shape: S) =>
  z.object({ type: z.literal(type), ...ids, ...shape }).describe(summary);

/** Every lifecycle event a run or compaction publishes. */
export const agentEventSchema = z.discriminatedUnion("type", [
  event("agent_start", "A run began.", { message: z.string(), model: z.string(), provider: z.string() }),
  event("turn_start", "A model call begins.", { turn: z.number().int().describe("1 for the run's first call") }),
  event("message", "A message was stored.", {
    role: z.enum(["user", "assistant", "reasoning", "summary"]),
    text: z.string(),
    messageId: z.string(),
    via: z.enum(["steering", "follow_up", "queue"]).optional().describe("user: how it was delivered"),
    phase: z.enum(["commentary", "final_answer"]).optional().describe("assistant: the model's phase"),
    refusal: z.boolean().optional().describe("assistant: the model refused"),
    messagesCompacted: z.number().int().optional().describe("summary: messages it replaces"),
  }),
  event("tool_execution_start", "A tool call starts.", {
    callId: z.string(),
    name: z.string(),
    args: z.unknown().describe("Parsed arguments (the raw text when not JSON)"),
  }),
  event(
    "tool_output",
    "Output of a running tool call as it arrives (coalesced every 100 ms, at most 64 KiB per call; the whole output is in tool_execution_end's result).",
    {
      callId: z.string(),
      stream: z.enum(["stdout", "stderr"]),
      text: z.string(),
      truncated: z
        .boolean()
        .optional()
        .describe("The call's live output reached its cap: the rest is in the result only"),
    },
  ),
  event("tool_execution_end", "A tool call ended.", {
    callId: z.string(),
    name: z.string(),
    result: z.unknown().describe("{stdout, stderr, exitCode, timeout} or {error:{code, message}}"),
    isError: z.boolean(),
    skipped: z.boolean().optional().describe("Not run: a steering message arrived first"),
  }),
  event("retry", "A model call failed in a way that can clear and is retried.", {
    turn: z.number().int().optional(),
    phase: z.literal("compact").optional().describe("The retried call is a compaction"),
    attempt: z.number().int(),
    delayMs: z.number().int(),
    status: z.number().int().optional().describe("HTTP status, when there was a response"),
    error: errorShape,
  }),
  event("compact_start", "A compaction began.", { instructions: z.string().optional() }),
  event("compact_end", "A compaction ended (history unchanged unless completed).", {
    status: z.enum(["completed", "error", "cancelled"]),
    messagesCompacted: z.number().int(),
    error: errorShape.optional(),
  }),
  event("agent_end", "The run ended.", {
    status: runStatusSchema,
    error: errorShape.optional().describe("model_incomplete: details.reason; provider_error: details.providerCode"),
    text: z.string(),
    refusal: z.boolean().optional(),
    usage: usageSchema,
    turns: z.number().int(),
    toolCalls: z.number().int(),
  }),
]);

/** A lifecycle event as published. */
export type AgentEvent = z.infer<typeof agentEventSchema>;

type WithoutIds<E> = E extends unknown ? Omit<E, "sessionId" | "runId" | "taskId"> : never;

/** A lifecycle event before the run's ids are added. */
export type AgentEventInput = WithoutIds<AgentEvent>;

/** Markdown list of the events and their fields, for the guide; each line starts with `indent`. */
export function agentEventsDoc(indent = ""): string {
  return agentEventSchema.options
    .map((o) => {
      const fields = Object.entries(o.shape)
        .filter(([k]) => !(k in ids) && k !== "type")
        .map(([k, v]) => {
          return `${k}${v instanceof z.ZodOptional ? "?" : ""}`;
        });
      const list = fields.length > 0 ? ` (\`${fields.join(", ")}\`)` : "";
      return `${indent}- \`${o.shape.type.value}\`${list}: ${o.description ?? ""}`;
    })
    .join("\n");
}
