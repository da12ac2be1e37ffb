/**
 * Compaction: the model summarises the context so far; a `summary` message is stored and the
 * context sent afterwards starts at it. Older messages stay readable through get_messages. The
 * summary is stored only when the call completed and nobody aborted it: a cancelled or failed
 * compaction leaves the history exactly as it was.
 */
import type OpenAI from "openai";
import type { ClawConfig } from "../config/claw-config.js";
import { ClawError } from "../core/errors.js";
import { bashTool } from "./bash-tool.js";
import { contextMessages, toInput } from "./history.js";
import { COMPACT_INSTRUCTIONS } from "./instructions.js";
import type { ModelCaller } from "./model-call.js";
import { messageText } from "./output-items.js";
import type { RunEvents } from "./run-events.js";
import type { Session, Usage } from "./session-schemas.js";
import type { SessionStore } from "./session-store.js";
import { zeroUsage } from "./usage.js";

/** What compaction returns. */
export interface CompactOutcome {
  summary: string;
  messagesCompacted: number;
  usage: Usage;
}

/** Summarises the session's current context and stores the summary. */
export async function compactSession(
  deps: { config: ClawConfig; store: SessionStore; client: OpenAI; model: ModelCaller; events: RunEvents },
  ctx: { session: Session; runId: string; signal: AbortSignal; instructions?: string },
): Promise<CompactOutcome> {
  const { store, events } = deps;
  const context = contextMessages(await store.allMessages(ctx.session.sessionId));
  if (context.length === 0 || (context.length === 1 && context[0]!.role === "summary")) {
    return { summary: context[0]?.text ?? "", messagesCompacted: 0, usage: zeroUsage() };
  }
  const ask = [
    "Summarise the conversation above for your own later use; the summary will replace it.",
    ctx.instructions ? `Focus: ${ctx.instructions}` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  const out = await deps.model.turn(
    deps.client,
    {
      model: ctx.session.model,
      instructions: COMPACT_INSTRUCTIONS,
      input: [...toInput(context, ctx.session.provider), { type: "message", role: "user", content: ask }],
      // The history holds function calls, so the tool stays declared; the summary needs no call.
      tools: [bashTool],
      toolChoice: "none",
      signal: ctx.signal,
      streamText: false,
      onEvent: () => {},
    },
    {
      provider: ctx.session.provider,
      policy: deps.config.modelRetry,
      onRetry: ({ attempt, delayMs, failure }) =>
        events.emit({
          type: "retry",
          phase: "compact",
          attempt,
          delayMs,
          ...(failure.status !== undefined ? { status: failure.status } : {}),
          error: { code: failure.error.code, message: failure.error.message },
        }),
    },
  );
  if (ctx.signal.aborted) throw new ClawError("cancelled", "the compaction was aborted; nothing was compacted");
  if (out.status === "incomplete")
    throw new ClawError(
      "model_incomplete",
      `the summary was cut off (${out.incompleteReason ?? "no reason given"}); nothing was compacted`,
      { reason: out.incompleteReason ?? null },
    );
  const summary = out.items
    .filter((i) => i.type === "message")
    .map((i) => messageText(i).text)
    .join("\n")
    .trim();
  if (summary === "")
    throw new ClawError("provider_error", "the model returned no summary; nothing was compacted", undefined, true);
  const m = await store.append(ctx.session.sessionId, { runId: ctx.runId, role: "summary", text: summary });
  events.emit({ type: "message", role: "summary", text: summary, messageId: m.id, messagesCompacted: context.length });
  return { summary, messagesCompacted: context.length, usage: out.usage };
}
