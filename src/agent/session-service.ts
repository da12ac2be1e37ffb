/**
 * Sessions and their runs. The session operations and the task runner both go through this
 * service: it owns the session rows, the one run queue per session (prompts, tasks and
 * compactions take turns in arrival order; run-scheduler.ts) and the durable queue of
 * acknowledged prompts, steering and follow-up messages (session-queue.ts).
 *
 * API used by the task runner:
 * - `ensure(args)` returns the session for a known `sessionKey`, else creates one.
 * - `get(ref)` finds by `sessionId` or `sessionKey`; throws `not_found`.
 * - `checkProvider(provider?)` throws `invalid_args` (unknown provider) or `provider_auth_missing`.
 * - `run(sessionId, message, {taskId, signal, onStart, onEvent})` joins the session's queue and
 *   resolves with the {@link RunResult} once the run has ended (failures are a status); it
 *   rejects when the job never started (`cancelled` through `signal`, `shutting_down`).
 */

import { randomUUID } from "node:crypto";
import type { ScopedTokens } from "../access/scoped-tokens.js";
import type { BashRunner } from "../bash/bash-runner.js";
import { DEFAULT_BUS } from "../bus/bus-name.js";
import type { BusService } from "../bus/bus-service.js";
import type { ClawConfig } from "../config.js";
import { ClawError } from "../errors.js";
import type { Db } from "../store/db.js";
import type { AgentEvent } from "./agent-events.js";
import type { CompactOutcome } from "./compact.js";
import { ModelCaller } from "./model-call.js";
import { checkKnownProvider, defaultModelFor, ModelClients, resolveProvider } from "./provider.js";
import { RunScheduler } from "./run-scheduler.js";
import { compactJob, runJob } from "./session-jobs.js";
import type { PendingCounts } from "./session-queue.js";
import { type EnsureSessionArgs, hasRef, type RunResult, type Session, type SessionRef } from "./session-schemas.js";
import { SessionStore } from "./session-store.js";

export type { RunResult, Session } from "./session-schemas.js";

/** What the session service is built from. */
export interface SessionServiceDeps {
  config: ClawConfig;
  db: Db;
  bus: BusService;
  bash: BashRunner;
  /** Where each run's scoped CLAW_TOKEN is minted. */
  tokens: ScopedTokens;
}

/** Options of {@link SessionService.run}. */
export interface RunOptions {
  taskId?: string;
  /** Aborting it cancels the run (HTTP stream and running bash), or removes it from the queue. */
  signal?: AbortSignal;
  /** Called when the run leaves the queue and starts; returning false skips it (it rejects `cancelled`). */
  onStart?: () => boolean | undefined | Promise<boolean | undefined>;
  /** Receives each lifecycle event (agent_start … agent_end) as it is published. */
  onEvent?: (event: AgentEvent) => void;
}

/** What `get_state` reports. */
export interface SessionRunState {
  isRunning: boolean;
  running: "agent" | "compact" | null;
  currentRunId: string | null;
  currentTaskId: string | null;
  pending: PendingCounts;
  queuedRuns: number;
}

const newRunId = () => `run_${randomUUID().replace(/-/g, "").slice(0, 20)}`;

/** Owns sessions, messages and runs. */
export class SessionService {
  /** Row access; read-only operations use it directly. */
  readonly store: SessionStore;
  private readonly scheduler = new RunScheduler();
  private readonly clients = new ModelClients();
  private readonly model: ModelCaller;

  constructor(readonly deps: SessionServiceDeps) {
    this.store = new SessionStore(deps.db);
    this.model = new ModelCaller(deps.config.log);
    const interrupted = this.store.interruptStaleRuns();
    if (interrupted > 0) deps.config.log(`tsclaw: ${interrupted} session run(s) were interrupted by the last shutdown`);
  }

  /** Restart recovery: prompts acknowledged before the last shutdown run now, in order. */
  start(): void {
    for (const { id, sessionId } of this.store.queue.allPrompts()) {
      const session = this.store.find({ sessionId });
      if (!session) continue;
      try {
        this.submitAgent(session, { queuedId: id }, {}).catch(() => {});
      } catch (err) {
        this.deps.config.log(`tsclaw: a queued prompt of ${session.sessionKey} waits: ${(err as Error).message}`);
      }
    }
  }

  /** Returns the session of `sessionKey` when it exists, else creates one. */
  ensure(args: EnsureSessionArgs = {}): Session {
    if (args.sessionKey !== undefined) {
      const existing = this.store.find({ sessionKey: args.sessionKey });
      if (existing) return existing;
    }
    const { config } = this.deps;
    const provider = args.provider ?? config.provider;
    checkKnownProvider(config, provider);
    const now = Date.now();
    const sessionId = `ses_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const session: Session = {
      sessionId,
      sessionKey: args.sessionKey ?? sessionId,
      name: args.name ?? null,
      bus: args.bus ?? DEFAULT_BUS,
      model: args.model ?? defaultModelFor(config, provider),
      provider,
      instructions: args.instructions ?? null,
      streamText: args.streamText ?? false,
      createdAt: now,
      updatedAt: now,
    };
    this.store.insert(session);
    return session;
  }

  /** The session named by `ref` (sessionId, sessionKey, or session = either); throws `not_found`. */
  get(ref: SessionRef): Session {
    if (!hasRef(ref))
      throw new ClawError("invalid_args", "name the session with sessionId or sessionKey", {
        issues: [{ path: "sessionId", message: "sessionId or sessionKey is required" }],
      });
    const s = this.store.find(ref);
    if (!s)
      throw new ClawError(
        "not_found",
        `no session ${ref.sessionId ?? ref.sessionKey ?? ref.session}; start_session creates one (with sessionKey to name it), list_sessions lists them`,
        { ...ref },
      );
    return s;
  }

  /** Throws `invalid_args` for an unknown provider, `provider_auth_missing` (naming the variable) without its key. Default: the claw's provider */
  checkProvider(provider?: string): void {
    resolveProvider(this.deps.config, provider);
  }

  /** Changes model (and provider, which must be known and have its key). */
  setModel(sessionId: string, model: string, provider?: string): Session {
    if (provider !== undefined) this.checkProvider(provider);
    return this.store.update(sessionId, { model, ...(provider !== undefined ? { provider } : {}) });
  }

  /** True while a run (or a compaction) of the session is active. */
  isRunning(sessionId: string): boolean {
    return this.scheduler.busy(sessionId);
  }

  /** Ids of sessions with an active run or compaction. */
  activeSessionIds(): string[] {
    return this.scheduler.activeSessionIds();
  }

  /** What the session is doing now and what waits. */
  state(sessionId: string): SessionRunState {
    const job = this.scheduler.active(sessionId);
    return {
      isRunning: job !== undefined,
      running: job?.kind ?? null,
      currentRunId: job?.runId ?? null,
      currentTaskId: job?.taskId ?? null,
      pending: this.store.queue.counts(sessionId),
      queuedRuns: this.scheduler.waiting(sessionId),
    };
  }

  /** Waits for the session's active run or compaction to end (resolves at once when idle). */
  waitForRun(sessionId: string): Promise<void> {
    return this.scheduler.idle(sessionId);
  }

  /**
   * Joins the session's run queue with `message`. When the session is busy the message is
   * stored first (a queued prompt survives a restart and runs then); a task's prompt is already
   * stored with its task.
   */
  run(sessionId: string, message: string, opts: RunOptions = {}): Promise<RunResult> {
    // Not async: the caller's handlers chain onto the job's own promise, so they run before the
    // session's next job starts (an async wrapper would add ticks and let it start first).
    try {
      const session = this.get({ sessionId });
      this.clientFor(session); // provider_auth_missing before anything is queued
      const queued = this.scheduler.busy(sessionId) && opts.taskId === undefined;
      const first = queued ? { queuedId: this.store.queue.add(sessionId, "prompt", message) } : { text: message };
      return this.submitAgent(session, first, opts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * `prompt`: with a behavior while an agent run is active, the message joins that run's queue
   * (steering or follow-up) and the caller gets that run's result; otherwise a run of its own.
   */
  prompt(sessionId: string, message: string, behavior?: "steer" | "follow_up"): Promise<RunResult> {
    const session = this.get({ sessionId });
    this.clientFor(session);
    const active = this.scheduler.active(sessionId);
    if (behavior && active?.result) {
      this.store.queue.add(sessionId, behavior, message);
      return active.result;
    }
    return this.run(sessionId, message);
  }

  /** `steer` / `follow_up`: stores the message for the active run (or the next one). */
  enqueue(sessionId: string, kind: "steer" | "follow_up", message: string) {
    this.store.queue.add(sessionId, kind, message);
    const pending = this.store.queue.counts(sessionId);
    return {
      queued: true,
      pending: kind === "steer" ? pending.steering : pending.followUp,
      running: this.isRunning(sessionId),
    };
  }

  /** Drops pending steering and follow-up messages; returns how many. */
  clearQueue(sessionId: string): number {
    return this.store.queue.clear(sessionId);
  }

  /** Summarises the session's context (see compact.ts), in its turn like a run. */
  compact(sessionId: string, instructions?: string): Promise<CompactOutcome> {
    const session = this.get({ sessionId });
    const client = this.clientFor(session);
    const job = compactJob(this.jobDeps(), { session, client, runId: newRunId(), instructions });
    this.scheduler.submit(sessionId, job);
    return job.outcome;
  }

  /** Aborts what the session is doing now (run or compaction); false when it was idle. */
  abort(sessionId: string): boolean {
    const job = this.scheduler.active(sessionId);
    if (!job) return false;
    job.controller.abort();
    return true;
  }

  /** Aborts what runs, drops what waits, then deletes the session with its messages and runs. False when unknown. */
  async delete(sessionId: string): Promise<boolean> {
    this.scheduler.dropWaiting(sessionId, new ClawError("not_found", "the session was deleted"));
    if (this.abort(sessionId)) await this.waitForRun(sessionId);
    return this.store.delete(sessionId);
  }

  /** Aborts active runs, drops waiting ones (queued prompts stay stored for the next start) and waits. */
  close(): Promise<void> {
    return this.scheduler.close();
  }

  private submitAgent(session: Session, first: { text: string } | { queuedId: number }, opts: RunOptions) {
    const client = this.clientFor(session);
    const job = runJob(this.jobDeps(), { session, client, runId: newRunId(), first, opts });
    this.scheduler.submit(session.sessionId, job);
    return job.result;
  }

  private jobDeps() {
    const { config, bus, bash, tokens } = this.deps;
    return { config, bus, bash, tokens, store: this.store, model: this.model };
  }

  private clientFor(session: Session) {
    return this.clients.get(resolveProvider(this.deps.config, session.provider));
  }
}
