/**
 * Zod schemas of sessions, messages and run results. The session operations use them as their
 * outputs and the typed API infers its types from them; nothing here is written twice.
 */
import { z } from "zod";
import { busNameSchema } from "../bus/bus-name.js";

/** A session: the durable conversation one caller continues by key, plus its per-session settings. */
export const sessionSchema = z.object({
  sessionId: z.string(),
  sessionKey: z
    .string()
    .describe("The caller's continuity name; starting a session with an existing key returns that session"),
  name: z.string().nullable(),
  bus: z.string().describe("Bus the session's events are published to"),
  model: z.string(),
  provider: z.string(),
  instructions: z.string().nullable().describe("Custom instructions; null means the default ones"),
  streamText: z.boolean().describe("Publish response.output_text.delta events to the bus"),
  createdAt: z.number(),
  updatedAt: z.number(),
});

/** A session. */
export type Session = z.infer<typeof sessionSchema>;

/** What a new session may set; unset fields take the claw's defaults (start_session's input). */
export const ensureSessionArgsSchema = z
  .object({
    bus: busNameSchema.optional().describe('Bus the session publishes to. Default: "thebus"'),
    sessionKey: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Your continuity name; an existing key returns its session unchanged. Default: the new session's id"),
    name: z.string().optional().describe("Display name"),
    model: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Model. Default: the server's for its own provider (server_identity.model; the guide's \"This server\" section), else the provider's default (openai: gpt-5)",
      ),
    provider: z
      .string()
      .min(1)
      .optional()
      .describe('"openrouter", "openai", or the provider the server was configured with. Default: the server\'s'),
    instructions: z.string().optional().describe("System instructions. Default: the built-in agent instructions"),
    streamText: z.boolean().optional().describe("Also publish response.output_text.delta events. Default: false"),
  })
  .strict();

/** Arguments of SessionService.ensure and start_session. */
export type EnsureSessionArgs = z.infer<typeof ensureSessionArgsSchema>;

/**
 * Message roles, in the order a conversation uses them. `reasoning` is a reasoning item of the
 * model, `item` any other output item the provider sent (a web search call, …), kept verbatim.
 */
export const messageRoleSchema = z.enum([
  "user",
  "assistant",
  "reasoning",
  "tool_call",
  "tool_result",
  "item",
  "summary",
]);

/** One stored message. */
export const messageSchema = z.object({
  id: z.string(),
  seq: z.number().int().describe("Position in the session, from 1"),
  runId: z.string().nullable(),
  role: messageRoleSchema,
  text: z
    .string()
    .optional()
    .describe("user, assistant and summary messages; reasoning: its summary text (refusals count as text)"),
  callId: z.string().optional().describe("tool_call and tool_result"),
  name: z.string().optional().describe("Tool name (tool_call, tool_result); the item's type (item)"),
  args: z.unknown().optional().describe("tool_call: the parsed arguments (the raw text when not JSON)"),
  result: z
    .unknown()
    .optional()
    .describe("tool_result: {stdout, stderr, exitCode, timeout} or {error:{code, message}}"),
  isError: z
    .boolean()
    .optional()
    .describe("tool_result: true when the tool failed (bad arguments, cancelled, skipped …)"),
  phase: z
    .enum(["commentary", "final_answer"])
    .optional()
    .describe("assistant: the phase the model gave the message (intermediate commentary or the final answer)"),
  refusal: z.boolean().optional().describe("assistant: true when the model refused (the refusal is the text)"),
  item: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "assistant, reasoning, tool_call, item: the output item exactly as the provider sent it (sent back unchanged)",
    ),
  createdAt: z.number(),
});

/** A stored message. */
export type Message = z.infer<typeof messageSchema>;
/** A message to append (id, seq and time are assigned; `phase` is read from the item). */
export type NewMessage = Omit<Message, "id" | "seq" | "createdAt" | "phase">;

/** Token usage summed over a run's model calls, as the provider reported it. */
export const usageSchema = z.object({
  input: z.number().int(),
  output: z.number().int(),
  total: z.number().int(),
  cachedInput: z.number().int().describe("Input tokens served from the provider's prompt cache"),
  reasoning: z.number().int().describe("Output tokens spent on reasoning"),
  cost: z.number().nullable().describe("Cost the provider reported (OpenRouter: USD); null when it reported none"),
});

/** Token usage. */
export type Usage = z.infer<typeof usageSchema>;

/** How a run ended. */
export const runStatusSchema = z.enum(["completed", "completed_no_summary", "error", "cancelled"]);

/** The outcome of one run (what `prompt` returns and what tasks record). */
export const runResultSchema = z.object({
  sessionId: z.string(),
  runId: z.string(),
  status: runStatusSchema.describe("completed_no_summary: the run ended without assistant text"),
  text: z.string().describe("The run's last assistant text (empty when none)"),
  usage: usageSchema,
  turns: z.number().int().describe("Model calls made"),
  toolCalls: z.number().int(),
  error: z
    .object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() })
    .optional()
    .describe("model_incomplete: details.reason; provider_error: details.providerCode, status, …"),
  refusal: z.boolean().optional().describe("True when the final text is the model's refusal"),
});

/** The outcome of one run. */
export type RunResult = z.infer<typeof runResultSchema>;

/** Fields that name a session: `sessionId`, `sessionKey`, or `session` (either). */
export const sessionRefShape = {
  sessionId: z.string().optional().describe("Session id"),
  sessionKey: z.string().optional().describe("Session key (alternative to sessionId)"),
  session: z.string().optional().describe("Session id or key (alternative to sessionId/sessionKey)"),
};

/** A reference to a session. */
export interface SessionRef {
  sessionId?: string;
  sessionKey?: string;
  session?: string;
}

/** True when a reference names some session. */
export function hasRef(ref: SessionRef): boolean {
  return ref.sessionId !== undefined || ref.sessionKey !== undefined || ref.session !== undefined;
}

/** An operation's input: `{sessionId | sessionKey | session, ...shape}`, strict, one reference required. */
export function withRef<S extends z.ZodRawShape>(shape: S) {
  return z
    .object({ ...sessionRefShape, ...shape })
    .strict()
    .refine((a) => hasRef(a as SessionRef), {
      message: "name the session with sessionId or sessionKey",
      path: ["sessionId"],
    });
}

/** Just the reference fields of validated arguments. */
export function refOf(a: SessionRef): SessionRef {
  return { sessionId: a.sessionId, sessionKey: a.sessionKey, session: a.session };
}
