/**
 * Output items to stored messages: each item becomes one message row that keeps the item
 * verbatim (replayed unchanged on the next turn) and a readable view of it (text, call
 * arguments, refusal). Function call `arguments` stay the exact string the model streamed.
 */
import { parseToolArgs } from "./bash-tool.js";
import type { OutputItem } from "./responses-stream.js";
import type { NewMessage } from "./session-schemas.js";

/** A function call the model made, with its arguments as streamed. */
export interface ModelCall {
  callId: string;
  name: string;
  arguments: string;
}

/** The readable text of a message item: its output_text parts, and refusals as text. */
export function messageText(item: OutputItem): { text: string; refusal: boolean } {
  const parts = Array.isArray(item.content) ? (item.content as Array<Record<string, unknown>>) : [];
  let refusal = false;
  const text = parts
    .map((p) => {
      if (p.type === "output_text" && typeof p.text === "string") return p.text;
      if (p.type === "refusal" && typeof p.refusal === "string") {
        refusal = true;
        return p.refusal;
      }
      return "";
    })
    .join("");
  return { text, refusal };
}

/** The summary text of a reasoning item (empty when the provider sent none). */
function reasoningText(item: OutputItem): string {
  const parts = Array.isArray(item.summary) ? (item.summary as Array<Record<string, unknown>>) : [];
  return parts
    .map((p) => (typeof p.text === "string" ? p.text : ""))
    .filter((t) => t !== "")
    .join("\n\n");
}

/** The message row for one output item. */
export function itemMessage(runId: string, item: OutputItem): NewMessage {
  switch (item.type) {
    case "message": {
      const { text, refusal } = messageText(item);
      return { runId, role: "assistant", text, item, ...(refusal ? { refusal } : {}) };
    }
    case "function_call": {
      const args = String(item.arguments ?? "");
      const parsed = parseToolArgs(args);
      return {
        runId,
        role: "tool_call",
        callId: String(item.call_id),
        name: String(item.name ?? ""),
        args: parsed.error ? args : parsed.args,
        item,
      };
    }
    case "reasoning":
      return { runId, role: "reasoning", text: reasoningText(item), item };
    default:
      return { runId, role: "item", name: item.type, item };
  }
}

/** The call an item asks for, when it is a function call. */
export function callOf(item: OutputItem): ModelCall | undefined {
  if (item.type !== "function_call") return undefined;
  return { callId: String(item.call_id), name: String(item.name ?? ""), arguments: String(item.arguments ?? "") };
}
