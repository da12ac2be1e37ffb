/**
 * One run of the agent loop: user message → streamed model turn → each function call run in
 * order → outputs appended → next turn, until the model answers without a tool call. Every
 * output item is stored verbatim as it arrives in the response and replayed unchanged. Steering
 * lands at turn boundaries (calls not yet started get a "skipped" output), follow-ups when the
 * run would end; both come from the session's durable queue.
 */
import type OpenAI from "openai";
import type { BashRunner } from "../bash/bash-runner.js";
import type { ClawConfig } from "../config/claw-config.js";
import { ClawError, toClawError } from "../core/errors.js";
import { bashTool } from "./bash-tool.js";
import { contextMessages, toInput } from "./history.js";
import { DEFAULT_INSTRUCTIONS } from "./instructions.js";
import type { ModelCaller } from "./model-call.js";
import { callOf, type ModelCall } from "./output-items.js";
import type { RunEvents } from "./run-events.js";
import { runCalls } from "./run-tools.js";
import type { RunResult, Session } from "./session-schemas.js";
import type { SessionStore } from "./session-store.js";
import { addUsage, zeroUsage } from "./usage.js";

/** Everything one run needs. */
export interface AgentRunDeps {
  config: ClawConfig;
  store: SessionStore;
  bash: BashRunner;
  client: OpenAI;
  model: ModelCaller;
  events: RunEvents;
}

/** One run's identity and control. */
export interface AgentRunContext {
  session: Session;
  runId: string;
  taskId?: string;
  signal: AbortSignal;
  /** The run's scoped token, given to its bash as CLAW_TOKEN (served claws only). */
  token?: string;
}

/** Where the run's first user message comes from: given text, or a queued prompt (its row id). */
export type RunMessage = { text: string } | { queuedId: number };

/** Runs the loop to its end; never throws (failures become the result's status and error). */
export async function executeRun(deps: AgentRunDeps, ctx: AgentRunContext, first: RunMessage): Promise<RunResult> {
  const { store, events, config } = deps;
  const { session, runId, signal } = ctx;
  const usage = zeroUsage();
  let turns = 0;
  let toolCalls = 0;
  let lastText = "";
  let lastFinal = false;
  let refusal = false;
  let status: RunResult["status"];
  let error: RunResult["error"];

  // Takes queued messages of a kind into the history (one transaction each) and announces them.
  const deliver = async (kind: "steer" | "follow_up", limit?: number): Promise<boolean> => {
    const taken = await store.queue.deliver(session.sessionId, runId, kind, limit);
    for (const m of taken)
      events.emit({
        type: "message",
        role: "user",
        text: m.text ?? "",
        messageId: m.id,
        via: kind === "steer" ? "steering" : "follow_up",
      });
    return taken.length > 0;
  };

  const firstText = "text" in first ? first.text : ((await store.queue.text(first.queuedId)) ?? "");
  events.emit({ type: "agent_start", message: firstText, model: session.model, provider: session.provider });
  try {
    const m =
      "text" in first
        ? await store.append(session.sessionId, { runId, role: "user", text: first.text })
        : await store.queue.deliverPrompt(first.queuedId, runId);
    events.emit({
      type: "message",
      role: "user",
      text: m.text ?? "",
      messageId: m.id,
      ...("queuedId" in first ? { via: "queue" as const } : {}),
    });
    await deliver("steer");
    for (;;) {
      if (turns >= config.maxTurns)
        throw new ClawError(
          "turn_limit",
          `the run reached the turn limit (${config.maxTurns} model calls) without a final answer`,
          { maxTurns: config.maxTurns },
        );
      turns++;
      events.emit({ type: "turn_start", turn: turns });
      const out = await deps.model.turn(
        deps.client,
        {
          model: session.model,
          instructions: session.instructions ?? DEFAULT_INSTRUCTIONS,
          input: toInput(contextMessages(await store.allMessages(session.sessionId)), session.provider),
          tools: [bashTool],
          signal,
          streamText: session.streamText,
          onEvent: (e) => events.raw(e),
        },
        {
          provider: session.provider,
          policy: config.modelRetry,
          onRetry: ({ attempt, delayMs, failure }) =>
            events.emit({
              type: "retry",
              turn: turns,
              attempt,
              delayMs,
              ...(failure.status !== undefined ? { status: failure.status } : {}),
              error: { code: failure.error.code, message: failure.error.message },
            }),
        },
      );
      addUsage(usage, out.usage);

      // Stored in output order, one transaction per item, before any call runs.
      const calls: ModelCall[] = [];
      for (const item of out.items) {
        const stored = await store.appendItem(session.sessionId, runId, item);
        const call = callOf(item);
        if (call) calls.push(call);
        if (stored.role === "assistant") {
          const text = stored.text ?? "";
          events.emit({
            type: "message",
            role: "assistant",
            text,
            messageId: stored.id,
            ...(stored.phase ? { phase: stored.phase } : {}),
            ...(stored.refusal ? { refusal: true } : {}),
          });
          // A final answer wins over commentary that comes after it in the same run.
          const final = stored.phase !== "commentary";
          if (text !== "" && (final || !lastFinal)) {
            lastText = text;
            lastFinal = final;
            refusal = stored.refusal === true;
          }
        } else if (stored.role === "reasoning" && stored.text) {
          events.emit({ type: "message", role: "reasoning", text: stored.text, messageId: stored.id });
        }
      }
      if (out.status === "incomplete") {
        throw new ClawError(
          "model_incomplete",
          `the model stopped before finishing its answer (${out.incompleteReason ?? "no reason given"}); the partial answer is kept`,
          { reason: out.incompleteReason ?? null },
        );
      }

      toolCalls += await runCalls(deps, ctx, calls);

      if (await deliver("steer")) continue;
      if (calls.length > 0) continue;
      // One follow-up at a time, each answered before the next is delivered.
      if (await deliver("follow_up", 1)) continue;
      break;
    }
    status = lastText !== "" ? "completed" : "completed_no_summary";
  } catch (err) {
    const e = toClawError(err);
    if (signal.aborted || e.code === "cancelled") {
      status = "cancelled";
      error = { code: "cancelled", message: "the run was aborted" };
    } else {
      status = "error";
      error = {
        code: e.code,
        message: err instanceof ClawError ? e.message : `internal error: ${(err as Error)?.message ?? String(err)}`,
        ...(err instanceof ClawError && e.details ? { details: e.details } : {}),
      };
      if (!(err instanceof ClawError))
        config.log(`tsclaw: run ${runId} failed: ${(err as Error)?.stack ?? String(err)}`);
    }
  }
  const result: RunResult = { sessionId: session.sessionId, runId, status, text: lastText, usage, turns, toolCalls };
  if (error) result.error = error;
  if (refusal) result.refusal = true;
  await store.endRun(runId, { status, turns, toolCalls, usage, error });
  events.emit({
    type: "agent_end",
    status,
    ...(error ? { error } : {}),
    text: lastText,
    ...(refusal ? { refusal } : {}),
    usage,
    turns,
    toolCalls,
  });
  return result;
}
