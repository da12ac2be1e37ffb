/**
 * Builds the Responses `input` from stored messages: the full history every turn (no
 * previous_response_id), restarting at the newest summary after a compaction.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";
import type { Message } from "./session-schemas.js";

/** Prefix of the user message that carries a compaction summary. */
export const SUMMARY_PREFIX = "Summary of the conversation so far (older messages were compacted):\n\n";

/** The output text sent back for a tool call: JSON of the bash result or of the error. */
export function toolOutputText(result: unknown): string {
  return JSON.stringify(result ?? { error: { code: "no_result", message: "the tool produced no result" } });
}

/** Messages that still count for the model: the newest summary and everything after it. */
export function contextMessages(messages: readonly Message[]): Message[] {
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "summary") {
      start = i;
      break;
    }
  }
  return messages.slice(start);
}

/**
 * Converts messages to input items. A tool call whose result was never stored (the process died
 * mid-call) gets a synthetic error output so the history stays valid for the API.
 */
export function toInput(messages: readonly Message[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  const answered = new Set(messages.filter((m) => m.role === "tool_result").map((m) => m.callId));
  for (const m of messages) {
    switch (m.role) {
      case "user":
        items.push({ type: "message", role: "user", content: m.text ?? "" });
        break;
      case "summary":
        items.push({ type: "message", role: "user", content: SUMMARY_PREFIX + (m.text ?? "") });
        break;
      case "assistant":
        items.push({ type: "message", role: "assistant", content: m.text ?? "" });
        break;
      case "tool_call":
        items.push({
          type: "function_call",
          call_id: m.callId!,
          name: m.name ?? "bash",
          arguments: typeof m.args === "string" ? m.args : JSON.stringify(m.args ?? {}),
        });
        if (!answered.has(m.callId)) {
          items.push({
            type: "function_call_output",
            call_id: m.callId!,
            output: toolOutputText({
              error: { code: "interrupted", message: "the run ended before this call finished" },
            }),
          });
        }
        break;
      case "tool_result":
        items.push({ type: "function_call_output", call_id: m.callId!, output: toolOutputText(m.result) });
        break;
    }
  }
  return items;
}
