/**
 * The two kinds of job a session's run queue holds: an agent run and a compaction. Each records
 * its run row, publishes its events, links the caller's signal while it lasts, and settles the
 * caller's promise once its events are committed. A job joins its session's queue at once and
 * reads what it needs meanwhile (`prepared`): a failure there rejects the caller at once and
 * takes the job out of the queue.
 */
import type OpenAI from "openai";
import type { ScopedTokens } from "../access/scoped-tokens.js";
import type { BashRunner } from "../bash/bash-runner.js";
import { DEFAULT_BUS } from "../bus/bus-name.js";
import type { BusService } from "../bus/bus-service.js";
import type { ClawConfig } from "../config/claw-config.js";
import { ClawError, toClawError } from "../core/errors.js";
import { linkSignals } from "../core/link-signals.js";
import type { CarriedWrite } from "../store/sql.js";
import type { AgentEvent } from "./agent-events.js";
import { type CallGate, type RunGates, RunPaused } from "./agent-loop.js";
import { executeRun, type RunMessage } from "./agent-run.js";
import { type CompactOutcome, compactSession } from "./compact.js";
import type { ContextCache } from "./context-cache.js";
import type { ModelCaller } from "./model-call.js";
import { RunEvents } from "./run-events.js";
import type { RunStart } from "./run-rows.js";
import type { Job } from "./run-scheduler.js";
import type { LeaveWith } from "./session-gate.js";
import type { RunResult, Session } from "./session-schemas.js";
import type { SessionStore } from "./session-store.js";
import { zeroUsage } from "./usage.js";

/** What a job reads before it can start: the session row (and the first message of a run). */
/** Options of `SessionService.run`. */
export interface RunOptions {
  /** The session as the caller just read it (run_task); else the run reads it. */
  session?: Session;
  taskId?: string;
  /**
   * The run's place among the session's tasks (its task's seq): on several nodes a task run
   * starts only once every earlier task of its session has ended, wherever it was sent.
   */
  order?: number;
  /** Aborting it cancels the run (HTTP stream and running bash), or removes it from the queue. */
  signal?: AbortSignal;
  /** Awaited when the run leaves the queue and starts; returning false skips it (it rejects `cancelled`). */
  onStart?: (start?: RunStart) => boolean | undefined | Promise<boolean | undefined>;
  /** Receives each lifecycle event (agent_start … agent_end) as it is published. */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Called once the run's job is over (after its result was delivered) with the session lease's
   * release, which the caller's own end write may carry (a task's end): see LeaveWith.
   */
  leave?: LeaveWith;
}

export interface PreparedRun {
  session: Session;
  first: RunMessage;
}

/** Shared parts every job uses. */
export interface JobDeps {
  config: ClawConfig;
  bus: BusService;
  bash: BashRunner;
  store: SessionStore;
  model: ModelCaller;
  tokens: ScopedTokens;
  contexts: ContextCache;
  /** Approvals of the runs' calls. Default: none */
  gates?: RunGates;
}

/** A promise with its settle functions (the caller's side of a job). */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An agent run of `first` (given text, or a stored queued prompt). */
export function runJob(
  deps: JobDeps,
  a: { clientFor: (s: Session) => OpenAI; runId: string; prepared: Promise<PreparedRun>; opts: RunOptions },
): Job & { result: Promise<RunResult> } {
  const { runId, opts } = a;
  const { controller, release: unlink } = linkSignals(opts.signal);
  const caller = deferred<RunResult>();
  let failed: ClawError | undefined;
  const drop = (reason: ClawError) => {
    unlink();
    // A prompt stays stored through a shutdown (it runs after the restart); otherwise it is gone.
    if (reason.code !== "shutting_down")
      a.prepared
        .then((p) => ("queuedId" in p.first ? deps.store.queue.dropPrompt(p.first.queuedId) : undefined))
        .catch(() => {});
    caller.reject(failed ?? reason);
  };
  const { carryEnd, leave } = runEndCarried(deps, runId, opts.leave);
  // The session is gone or its provider has no key: the caller hears it now, not in its turn.
  a.prepared.catch((err: unknown) => {
    failed = toClawError(err);
    controller.abort();
  });
  return {
    kind: "agent",
    runId,
    taskId: opts.taskId,
    order: opts.order,
    leave,
    controller,
    result: caller.promise,
    drop,
    async start() {
      let started = false;
      try {
        const { session, first } = await a.prepared;
        const client = a.clientFor(session);
        const ids = { sessionId: session.sessionId, runId, taskId: opts.taskId };
        const resumed = "resume" in first;
        // A task's start may write the run's row (and read its policy) in its own statement.
        const carried =
          !resumed && opts.taskId !== undefined && opts.onStart
            ? deps.store.runs.startToCarry(runId, session.sessionId, opts.taskId, deps.gates?.policyRead(ids))
            : undefined;
        if ((await opts.onStart?.(carried)) === false) {
          drop(new ClawError("cancelled", "cancelled before it started"));
          return;
        }
        started = true;
        const { starting, recorded } = recordStart(deps, ids, resumed, carried);
        const gate = lazyGate(deps.gates?.forRun({ ...ids, bus: session.bus, resumed }, starting));
        const events = new RunEvents(deps.bus, session.bus, ids, deps.config.log, opts.onEvent);
        const { config, store, bash, model, contexts } = deps;
        // Served, the run's bash gets a token of its own, scoped to this run and ended with it.
        const token = config.url
          ? deps.tokens.mint({
              owner: `run ${runId} of session ${session.sessionId}`,
              // The default bus is shared by every session that names none: the run publishes
              // there (clients following it with the server token see it as before) but reads
              // only a bus its session has to itself.
              ...(session.bus === DEFAULT_BUS ? { buses: [], outOnlyBuses: [session.bus] } : { buses: [session.bus] }),
              sessionId: session.sessionId,
              sessionKey: session.sessionKey,
              taskId: opts.taskId,
            })
          : undefined;
        let result: RunResult;
        try {
          result = await executeRun(
            { config, store, bash, model, client, events, contexts },
            {
              session,
              runId,
              taskId: opts.taskId,
              signal: controller.signal,
              token: token?.token,
              gate,
              recorded,
              carryEnd,
            },
            first,
          );
        } finally {
          token?.revoke();
        }
        unlink();
        // Settled before the next job starts (its handlers run first): a task's end is recorded
        // before the next task of its session begins, and a caller reads every event of its run.
        await events.flushed();
        caller.resolve(result);
      } catch (err) {
        unlink();
        if (!started && failed) caller.reject(failed);
        // Paused on a call (closing, or taken over): it resumes later, from storage.
        else if (err instanceof RunPaused) caller.reject(new ClawError("shutting_down", err.message));
        else caller.reject(toClawError(err));
      }
    },
  };
}

/**
 * A task's run on PostgreSQL leaves its row's end for the task's end to carry (one statement
 * less per run): the row is ended in the statement that gives the session's lease back, or alone
 * once that statement did not carry it (the task had nothing to write, or the write failed).
 * Returns the run's `carryEnd` and the job's `leave` (as given where nothing is carried).
 */
function runEndCarried(
  deps: JobDeps,
  runId: string,
  leave: LeaveWith | undefined,
): { carryEnd?: (end: CarriedWrite) => void; leave?: LeaveWith } {
  if (!leave || deps.store.sql.dialect !== "postgres") return { leave };
  let runEnd: CarriedWrite | undefined;
  return {
    carryEnd: (end) => {
      runEnd = end;
    },
    leave: async (release) => {
      try {
        await leave(release, runEnd);
      } finally {
        if (runEnd)
          await deps.store.runs
            .write(runEnd)
            .catch((err: unknown) => deps.config.log(`tsclaw: run ${runId}: could not record its end: ${String(err)}`));
      }
    },
  };
}

/**
 * The run row written and the run's approval policy read while the run goes on (off its way to
 * the model), in one statement on PostgreSQL, or already by its task's start (`carried`).
 * `starting` resolves to the policy rows (awaited before the run's first call); `recorded` once
 * the row is written (awaited, and reported, at the run's end). A paused run resumed here
 * already has its row: this node now holds it (and its gate reads the policy).
 */
function recordStart(
  deps: JobDeps,
  ids: { sessionId: string; runId: string; taskId?: string },
  resumed: boolean,
  carried: RunStart | undefined,
): { starting: Promise<unknown[]> | undefined; recorded: Promise<void> } {
  const { runs } = deps.store;
  const starting = resumed
    ? undefined
    : carried?.done
      ? Promise.resolve(carried.rows)
      : runs.start(ids.runId, ids.sessionId, ids.taskId, "agent", deps.gates?.policyRead(ids));
  const recorded = starting ? starting.then(() => {}) : runs.adopt(ids.runId);
  recorded.catch(() => {});
  return { starting, recorded };
}

/** The gate a run's calls wait on while its policy is still being read (none without approvals). */
function lazyGate(gating: Promise<CallGate | undefined> | undefined): CallGate | undefined {
  if (!gating) return undefined;
  gating.catch(() => {}); // a failed read fails the run's first call
  return { admit: async (call, signal) => (await gating)?.admit(call, signal) };
}

/** A compaction; the history changes only when it completes. */
export function compactJob(
  deps: JobDeps,
  a: { prepared: Promise<{ session: Session; client: OpenAI }>; runId: string; instructions?: string },
): Job & { outcome: Promise<CompactOutcome> } {
  const { runId } = a;
  const controller = new AbortController();
  const caller = deferred<CompactOutcome>();
  let failed: ClawError | undefined;
  a.prepared.catch((err: unknown) => {
    failed = toClawError(err);
    controller.abort();
  });
  return {
    kind: "compact",
    runId,
    controller,
    outcome: caller.promise,
    drop: (reason) => caller.reject(failed ?? reason),
    async start() {
      const { store } = deps;
      let prepared: { session: Session; client: OpenAI };
      try {
        prepared = await a.prepared;
      } catch (err) {
        caller.reject(toClawError(err));
        return;
      }
      const { session, client } = prepared;
      let events: RunEvents | undefined;
      try {
        await store.runs.start(runId, session.sessionId, undefined, "compact");
        events = new RunEvents(deps.bus, session.bus, { sessionId: session.sessionId, runId }, deps.config.log);
        events.emit({ type: "compact_start", ...(a.instructions ? { instructions: a.instructions } : {}) });
        const o = await compactSession(
          { config: deps.config, store, client, model: deps.model, events },
          { session, runId, signal: controller.signal, instructions: a.instructions },
        );
        await store.runs.end(runId, { status: "completed", turns: 1, toolCalls: 0, usage: o.usage });
        events.emit({ type: "compact_end", status: "completed", messagesCompacted: o.messagesCompacted });
        await events.flushed();
        caller.resolve(o);
      } catch (err) {
        const cancelled = controller.signal.aborted;
        const e = cancelled
          ? new ClawError("cancelled", "the compaction was aborted; the history is unchanged")
          : toClawError(err);
        const error = { code: e.code, message: e.message };
        const status = cancelled ? "cancelled" : "error";
        try {
          await store.runs.end(runId, { status, turns: 1, toolCalls: 0, usage: zeroUsage(), error });
          events?.emit({ type: "compact_end", status, messagesCompacted: 0, error });
          await events?.flushed();
        } finally {
          caller.reject(e);
        }
      }
    },
  };
}
