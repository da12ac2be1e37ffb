/**
 * One run of a stored session: stores its first user message, loads the history once, and runs
 * the agent loop (agent-loop.ts) with the session's tables as its storage and inbox, the model
 * through the ModelCaller and bash as its tool; then records the run's end (or hands it to the
 * write that ends its task). Every output item is stored verbatim as it arrives and replayed
 * unchanged; steering and follow-ups come from the session's durable queue.
 */
import type OpenAI from "openai";
import type { BashRunner } from "../bash/bash-runner.js";
import type { ClawConfig } from "../config/claw-config.js";
import { ClawError, toClawError } from "../core/errors.js";
import type { CarriedWrite } from "../store/sql.js";
import { type AgentLoopConfig, type CallGate, type LoopProgress, RunPaused, runAgentLoop } from "./agent-loop.js";
import { bashTool } from "./bash-tool.js";
import type { ContextCache } from "./context-cache.js";
import { DEFAULT_INSTRUCTIONS } from "./instructions.js";
import type { ModelCaller } from "./model-call.js";
import { RunContext } from "./run-context.js";
import type { RunEvents } from "./run-events.js";
import { pendingCalls } from "./run-resume.js";
import { bashExecutor } from "./run-tools.js";
import { sessionRunPorts } from "./session-run-port.js";
import type { Message, RunResult, Session } from "./session-schemas.js";
import type { SessionStore } from "./session-store.js";
import { zeroUsage } from "./usage.js";

/** Everything one run needs. */
export interface AgentRunDeps {
  config: ClawConfig;
  store: SessionStore;
  bash: BashRunner;
  client: OpenAI;
  model: ModelCaller;
  events: RunEvents;
  /** Where the session's context is kept between runs. */
  contexts: ContextCache;
}

/** One run's identity and control. */
export interface AgentRunContext {
  session: Session;
  runId: string;
  taskId?: string;
  signal: AbortSignal;
  /** The run's scoped token, given to its bash as CLAW_TOKEN (served claws only). */
  token?: string;
  /** Judges each call before it runs (approvals). Default: every call runs */
  gate?: CallGate;
  /** The run row's write, still under way: awaited before the run's end is recorded. Default: written */
  recorded?: Promise<void>;
  /**
   * Takes the run row's end instead of the run writing it (a task's run on PostgreSQL: the
   * task's end carries it, see CarriedWrite). Default: the run writes it before `agent_end`
   */
  carryEnd?: (end: CarriedWrite) => void;
}

/**
 * Where the run's first user message comes from: given text, or a queued prompt (its row id);
 * or, for a stored run paused on a call (`resume`), that call: the run goes on from it.
 */
export type RunMessage = { text: string } | { queuedId: number } | { resume: { callId: string } };

/**
 * Runs the loop to its end; never throws (failures become the result's status and error),
 * except {@link RunPaused}: the run stopped unfinished, to be resumed, and records no end.
 */
export async function executeRun(deps: AgentRunDeps, ctx: AgentRunContext, first: RunMessage): Promise<RunResult> {
  const { store, events } = deps;
  const { session, runId } = ctx;
  const progress: LoopProgress = {
    turns: 0,
    toolCalls: 0,
    usage: zeroUsage(),
    text: "",
    final: false,
    refusal: false,
  };
  // The run's storage and inbox share what each stored message saw waiting in the queue.
  const ports = sessionRunPorts(store, session.sessionId, runId);
  const firstText =
    "text" in first ? first.text : "queuedId" in first ? ((await store.queue.text(first.queuedId)) ?? "") : "";
  events.emit({ type: "agent_start", message: firstText, model: session.model, provider: session.provider });
  let failure: { err: unknown } | undefined;
  try {
    if ("resume" in first) {
      // A paused run: its history is read once, and it goes on from the calls left without a result.
      deps.contexts.forget(session.sessionId);
      const history = await store.allMessages(session.sessionId);
      const pending = pendingCalls(history, runId, first.resume.callId);
      await runAgentLoop(loopConfig(deps, ctx, ports), new RunContext(history, session.provider), progress, pending);
    } else {
      // The message is stored while the session's context is loaded (one wait for both): the
      // load may or may not see it, and the context gets it once either way. A context kept
      // from this node's last run is caught up in the message's own statement (PostgreSQL).
      const kept =
        "text" in first && store.sql.dialect === "postgres"
          ? deps.contexts.take(session.sessionId, session.provider)
          : undefined;
      const [m, context] =
        kept && "text" in first
          ? await catchUp(deps, ports, kept, first.text, session.sessionId)
          : await Promise.all([
              "text" in first
                ? ports.store.append({ role: "user", text: first.text })
                : store.queue.deliverPrompt(first.queuedId, runId),
              deps.contexts.load(store, session.sessionId, session.provider),
            ]);
      if (m.seq > context.lastSeq) context.add(m);
      events.emit({
        type: "message",
        role: "user",
        text: m.text ?? "",
        messageId: m.id,
        ...("queuedId" in first ? { via: "queue" as const } : {}),
      });
      // Storage was read once (only what is new since this node's last run of the session); from
      // here the loop keeps the context in memory.
      await runAgentLoop(loopConfig(deps, ctx, ports), context, progress);
    }
  } catch (err) {
    if (err instanceof RunPaused) {
      deps.contexts.forget(session.sessionId);
      await ctx.recorded?.catch(() => {}); // a paused run is resumed from its row
      throw err;
    }
    failure = { err };
  }
  return endRun(deps, ctx, progress, failure);
}

/** Stores the run's first message and brings the kept `context` up to date, in one statement. */
async function catchUp(
  deps: AgentRunDeps,
  ports: ReturnType<typeof sessionRunPorts>,
  context: RunContext,
  text: string,
  sessionId: string,
): Promise<[Message, RunContext]> {
  const { message, newer } = await ports.first(text, context.lastSeq);
  for (const n of newer ?? (await deps.store.messages(sessionId, context.lastSeq))) context.add(n);
  deps.contexts.keep(sessionId, context);
  return [message, context];
}

/** Records the run's end: completed, or its failure (cancelled, error). */
async function endRun(
  deps: AgentRunDeps,
  ctx: AgentRunContext,
  progress: LoopProgress,
  failure?: { err: unknown },
): Promise<RunResult> {
  const { store, events, config } = deps;
  const { session, runId, signal } = ctx;
  let status: RunResult["status"];
  let error: RunResult["error"];
  if (!failure) status = progress.text !== "" ? "completed" : "completed_no_summary";
  else {
    const { err } = failure;
    // A failed write may have left the kept context behind storage: the next run reads it all.
    deps.contexts.forget(session.sessionId);
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
  const { turns, toolCalls, usage, text, refusal } = progress;
  const result: RunResult = { sessionId: session.sessionId, runId, status, text, usage, turns, toolCalls };
  if (error) result.error = error;
  if (refusal) result.refusal = true;
  await ctx.recorded;
  const end = { status, turns, toolCalls, usage, error };
  if (ctx.carryEnd) ctx.carryEnd(store.runs.endToCarry(runId, end));
  else await store.runs.end(runId, end);
  events.emit({
    type: "agent_end",
    status,
    ...(error ? { error } : {}),
    text,
    ...(refusal ? { refusal } : {}),
    usage,
    turns,
    toolCalls,
  });
  return result;
}

/** The loop's ports for a run of a stored session: the model, the session's tables, bash. */
function loopConfig(
  deps: AgentRunDeps,
  ctx: AgentRunContext,
  ports: Pick<AgentLoopConfig, "store" | "inbox">,
): AgentLoopConfig {
  const { events, config } = deps;
  const { session, signal } = ctx;
  return {
    maxTurns: config.maxTurns,
    signal,
    model: (input, turn) =>
      deps.model.turn(
        deps.client,
        {
          model: session.model,
          instructions: session.instructions ?? DEFAULT_INSTRUCTIONS,
          input,
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
              turn,
              attempt,
              delayMs,
              ...(failure.status !== undefined ? { status: failure.status } : {}),
              error: { code: failure.error.code, message: failure.error.message },
            }),
        },
      ),
    ...ports,
    tools: bashExecutor(
      deps.bash,
      {
        CLAW_SESSION_ID: session.sessionId,
        CLAW_SESSION_KEY: session.sessionKey,
        CLAW_TASK_ID: ctx.taskId,
        CLAW_BUS: session.bus,
        CLAW_URL: config.url,
        CLAW_TOKEN: ctx.token,
      },
      (callId, chunk) => events.emit({ type: "tool_output", callId, ...chunk }),
    ),
    ...(ctx.gate ? { gate: ctx.gate } : {}),
    emit: (e) => events.emit(e),
  };
}
