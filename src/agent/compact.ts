/**
 * Compaction: the model summarises the context so far; a `summary` message is stored and the
 * context sent afterwards starts at it. Older messages stay readable through get_messages.
 */
import type OpenAI from "openai";
import type { ClawConfig } from "../config.js";
import { ClawError } from "../errors.js";
import { bashTool } from "./bash-tool.js";
import { contextMessages, toInput } from "./history.js";
import { COMPACT_INSTRUCTIONS } from "./instructions.js";
import { withModelRetry } from "./model-retry.js";
import { streamTurn } from "./responses-stream.js";
import type { RunEvents } from "./run-events.js";
import type { Session, Usage } from "./session-schemas.js";
import type { SessionStore } from "./session-store.js";

/** What compaction returns. */
export interface CompactOutcome {
  summary: string;
  messagesCompacted: number;
  usage: Usage;
}

/** Summarises the session's current context and stores the summary. */
export async function compactSession(
  deps: { config: ClawConfig; store: SessionStore; client: OpenAI; events: RunEvents },
  ctx: { session: Session; runId: string; signal: AbortSignal; instructions?: string },
): Promise<CompactOutcome> {
  const { store, events } = deps;
  const context = contextMessages(store.allMessages(ctx.session.sessionId));
  const usage: Usage = { input: 0, output: 0, total: 0 };
  if (context.length === 0 || (context.length === 1 && context[0]!.role === "summary")) {
    return { summary: context[0]?.text ?? "", messagesCompacted: 0, usage };
  }
  const ask = [
    "Summarise the conversation above for your own later use; the summary will replace it.",
    ctx.instructions ? `Focus: ${ctx.instructions}` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  const out = await withModelRetry(
    () =>
      streamTurn(deps.client, {
        model: ctx.session.model,
        instructions: COMPACT_INSTRUCTIONS,
        input: [...toInput(context), { type: "message", role: "user", content: ask }],
        // The history holds function calls, so the tool stays declared; the summary needs no call.
        tools: [bashTool],
        toolChoice: "none",
        signal: ctx.signal,
        streamText: false,
        onEvent: () => {},
      }),
    {
      policy: deps.config.modelRetry,
      signal: ctx.signal,
      onRetry: ({ attempt, delayMs, failure }) =>
        events.emit("retry", {
          phase: "compact",
          attempt,
          delayMs,
          status: failure.status,
          error: { code: failure.error.code, message: failure.error.message },
        }),
    },
  );
  Object.assign(usage, out.usage);
  const summary = out.outputs
    .map((o) => (o.kind === "text" ? o.text : ""))
    .join("\n")
    .trim();
  if (summary === "")
    throw new ClawError("provider_error", "the model returned no summary; nothing was compacted", undefined, true);
  const m = store.append(ctx.session.sessionId, { runId: ctx.runId, role: "summary", text: summary });
  events.emit("message", { role: "summary", text: summary, messageId: m.id, messagesCompacted: context.length });
  return { summary, messagesCompacted: context.length, usage };
}
