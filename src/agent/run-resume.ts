/**
 * What a paused run goes on from: the calls of its last model turn still without a result.
 * Every call the loop starts ends with a stored result (a cancelled one included), so a stored
 * call without one is a call the run paused on (waiting for an approval) or one the same model
 * response asked for after it.
 */
import { callOf, type ModelCall } from "./output-items.js";
import type { OutputItem } from "./responses-stream.js";
import type { Message } from "./session-schemas.js";

/** The calls of run `runId` from `callId` on that have no result yet, in the order the model made them. */
export function pendingCalls(history: readonly Message[], runId: string, callId: string): ModelCall[] {
  const answered = new Set(history.filter((m) => m.role === "tool_result").map((m) => m.callId));
  const calls = history.filter((m) => m.role === "tool_call" && m.runId === runId && !answered.has(m.callId));
  const from = calls.findIndex((m) => m.callId === callId);
  if (from < 0) return [];
  return calls.slice(from).flatMap((m) => {
    const call = m.item ? callOf(m.item as OutputItem) : undefined;
    return call ? [call] : [];
  });
}
