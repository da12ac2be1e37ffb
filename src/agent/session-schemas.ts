/**
 * Zod schemas of sessions, messages and run results. The session operations use them as their
 * outputs and the typed API infers its types from them; nothing here is written twice.
 */
import { z } from "zod";

/** A session (DESIGN §6), plus its per-session settings. */
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

/** Message roles, in the order a conversation uses them. */
export const messageRoleSchema = z.enum(["user", "assistant", "tool_call", "tool_result", "summary"]);

/** One stored message. */
export const messageSchema = z.object({
  id: z.string(),
  seq: z.number().int().describe("Position in the session, from 1"),
  runId: z.string().nullable(),
  role: messageRoleSchema,
  text: z.string().optional().describe("user, assistant and summary messages"),
  callId: z.string().optional().describe("tool_call and tool_result"),
  name: z.string().optional().describe("Tool name (tool_call, tool_result)"),
  args: z.unknown().optional().describe("tool_call: the parsed arguments (the raw text when not JSON)"),
  result: z
    .unknown()
    .optional()
    .describe("tool_result: {stdout, stderr, exitCode, timeout} or {error:{code, message}}"),
  isError: z
    .boolean()
    .optional()
    .describe("tool_result: true when the tool failed (bad arguments, cancelled, skipped …)"),
  createdAt: z.number(),
});

/** A stored message. */
export type Message = z.infer<typeof messageSchema>;

/** Token usage summed over a run's model calls. */
export const usageSchema = z.object({ input: z.number().int(), output: z.number().int(), total: z.number().int() });

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
  error: z.object({ code: z.string(), message: z.string() }).optional(),
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
