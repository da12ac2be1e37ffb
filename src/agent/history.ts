/**
 * Builds the Responses `input` from stored messages: the full history every turn (no
 * previous_response_id), restarting at the newest summary after a compaction. Items the
 * provider sent are replayed exactly as stored; rows older than that keep their plain form.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { PROVIDERS } from "./provider.js";
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

const INTERRUPTED = toolOutputText({
  error: { code: "interrupted", message: "the run ended before this call finished" },
});

/** True for rows that start a new input turn (the model's items of one response end there). */
const startsTurn = (m: Message | undefined) => m === undefined || m.role === "user" || m.role === "summary";

/**
 * Converts messages to input items. Two repairs keep any stored history valid for the API: a
 * tool call whose result was never stored (the process died mid-call, or a fork cut between
 * them) gets an `interrupted` output at the end of its turn, and a reasoning item with nothing
 * of its response after it (a cut history) or without encrypted content (a stateless request
 * cannot refer to it) is left out. The function calls of a response whose reasoning was left
 * out go without their item `id` for `provider`s that allow it (OpenAI refuses an `fc_…` id
 * whose reasoning item is missing; OpenRouter requires the id, so it stays there).
 */
export function toInput(messages: readonly Message[], provider?: string): ResponseInputItem[] {
  const keepCallIds = provider !== undefined && PROVIDERS[provider]?.callIdsRequired === true;
  const items: ResponseInputItem[] = [];
  /** True while the items of the current response follow a reasoning item that was left out. */
  let reasoningLeftOut = false;
  const answered = new Set(messages.filter((m) => m.role === "tool_result").map((m) => m.callId));
  let unanswered: string[] = [];
  const flushUnanswered = () => {
    for (const callId of unanswered) items.push({ type: "function_call_output", call_id: callId, output: INTERRUPTED });
    unanswered = [];
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (startsTurn(m)) flushUnanswered();
    if (startsTurn(m) || m.role === "tool_result") reasoningLeftOut = false; // a response's items end there
    const raw = m.item as ResponseInputItem | undefined;
    switch (m.role) {
      case "user":
        items.push({ type: "message", role: "user", content: m.text ?? "" });
        break;
      case "summary":
        items.push({ type: "message", role: "user", content: SUMMARY_PREFIX + (m.text ?? "") });
        break;
      case "assistant":
        items.push(raw ?? { type: "message", role: "assistant", content: m.text ?? "" });
        break;
      case "reasoning": {
        const next = messages[i + 1];
        const followed = next !== undefined && !startsTurn(next) && next.role !== "tool_result";
        const replayed = raw !== undefined && followed && typeof m.item?.encrypted_content === "string";
        if (replayed) items.push(raw);
        reasoningLeftOut = !replayed;
        break;
      }
      case "item":
        if (raw) items.push(raw);
        break;
      case "tool_call":
        items.push(
          (raw && reasoningLeftOut && !keepCallIds ? withoutId(raw) : raw) ?? {
            type: "function_call",
            call_id: m.callId!,
            name: m.name ?? "bash",
            arguments: typeof m.args === "string" ? m.args : JSON.stringify(m.args ?? {}),
          },
        );
        if (!answered.has(m.callId)) unanswered.push(m.callId!);
        break;
      case "tool_result":
        items.push({ type: "function_call_output", call_id: m.callId!, output: toolOutputText(m.result) });
        break;
    }
  }
  flushUnanswered();
  return items;
}

/** The item without its `id` (the provider then matches the call by its call_id alone). */
function withoutId(item: ResponseInputItem): ResponseInputItem {
  const { id: _id, ...rest } = item as ResponseInputItem & { id?: string };
  return rest as ResponseInputItem;
}
