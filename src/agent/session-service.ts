/**
 * Sessions and their agent runs. The session operations and the task runner both go through
 * this service: it owns the session rows, the in-memory run registry (one run per session at a
 * time) and the steering / follow-up queues.
 *
 * API used by the task runner:
 * - `ensure(args)` returns the session for a known `sessionKey`, else creates one.
 * - `get(ref)` finds by `sessionId` or `sessionKey`; throws `not_found`.
 * - `checkProvider(provider?)` throws `provider_auth_missing` naming the key variable.
 * - `run(sessionId, message, {taskId, signal, onEvent})` runs to the end and resolves with a
 *   {@link RunResult} (failures are a status, not a rejection); it throws `session_busy` when a
 *   run is active and `provider_auth_missing` when there is no key. `onEvent` receives every
 *   lifecycle payload also published to the bus.
 * - `isRunning(sessionId)`, `abort(sessionId)`, `close()` (aborts active runs and waits).
 */
import { randomUUID } from "node:crypto";
import type { BashRunner } from "../bash/bash-runner.js";
import { DEFAULT_BUS } from "../bus/bus-name.js";
import type { BusService } from "../bus/bus-service.js";
import type { ClawConfig } from "../config.js";
import { ClawError } from "../errors.js";
import type { Db } from "../store/db.js";
import { executeRun, type SessionQueues } from "./agent-run.js";
import { type CompactOutcome, compactSession } from "./compact.js";
import { ModelClients, resolveProvider } from "./provider.js";
import { RunEvents } from "./run-events.js";
import { hasRef, type RunResult, type Session, type SessionRef } from "./session-schemas.js";
import { SessionStore } from "./session-store.js";

export type { RunResult, Session } from "./session-schemas.js";

/** What the session service is built from. */
export interface SessionServiceDeps {
  config: ClawConfig;
  db: Db;
  bus: BusService;
  bash: BashRunner;
}

/** Arguments of {@link SessionService.ensure}. Unset fields take the claw's defaults. */
export interface EnsureSessionArgs {
  /** Continuity name; an existing key returns its session unchanged. Default: the new session's id */
  sessionKey?: string;
  /** Default: "thebus" */
  bus?: string;
  name?: string;
  /** Default: the claw's model */
  model?: string;
  /** Default: the claw's provider */
  provider?: string;
  /** Default: the built-in agent instructions */
  instructions?: string;
  /** Default: false */
  streamText?: boolean;
}

/** Options of {@link SessionService.run}. */
export interface RunOptions {
  taskId?: string;
  /** Aborting it cancels the run (HTTP stream and running bash). */
  signal?: AbortSignal;
  /** Receives each lifecycle payload (agent_start … agent_end) as it is published. */
  onEvent?: (payload: Record<string, unknown>) => void;
}

interface ActiveRun {
  runId: string;
  taskId?: string;
  kind: "agent" | "compact";
  controller: AbortController;
  done: Promise<unknown>;
  /** Agent runs only. */
  result?: Promise<RunResult>;
  /** Detaches from the caller's signal. */
  unlink: () => void;
}

/** Owns sessions, messages and runs. */
export class SessionService {
  /** Row access; read-only operations use it directly. */
  readonly store: SessionStore;
  private readonly active = new Map<string, ActiveRun>();
  private readonly queues = new Map<string, SessionQueues>();
  private readonly clients = new ModelClients();
  private closing = false;

  constructor(readonly deps: SessionServiceDeps) {
    this.store = new SessionStore(deps.db);
    const interrupted = this.store.interruptStaleRuns();
    if (interrupted > 0) deps.config.log(`tsclaw: ${interrupted} session run(s) were interrupted by the last shutdown`);
  }

  /** Returns the session of `sessionKey` when it exists, else creates one. */
  ensure(args: EnsureSessionArgs = {}): Session {
    if (args.sessionKey !== undefined) {
      const existing = this.store.find({ sessionKey: args.sessionKey });
      if (existing) return existing;
    }
    const now = Date.now();
    const sessionId = `ses_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const session: Session = {
      sessionId,
      sessionKey: args.sessionKey ?? sessionId,
      name: args.name ?? null,
      bus: args.bus ?? DEFAULT_BUS,
      model: args.model ?? this.deps.config.model,
      provider: args.provider ?? this.deps.config.provider,
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
      throw new ClawError("not_found", `no session ${ref.sessionId ?? ref.sessionKey ?? ref.session}`, { ...ref });
    return s;
  }

  /** Throws `provider_auth_missing` (naming the variable) when `provider` has no key. Default: the claw's provider */
  checkProvider(provider?: string): void {
    resolveProvider(this.deps.config, provider);
  }

  /** True while a run (or a compaction) of the session is active. */
  isRunning(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  /** Ids of sessions with an active run or compaction. */
  activeSessionIds(): string[] {
    return [...this.active.keys()];
  }

  /** The active run's ids, if any. */
  current(sessionId: string): { runId: string; taskId?: string; kind: "agent" | "compact" } | undefined {
    const a = this.active.get(sessionId);
    return a && { runId: a.runId, taskId: a.taskId, kind: a.kind };
  }

  /** Waits for the session's active run or compaction to end (resolves at once when idle). */
  async waitForRun(sessionId: string): Promise<void> {
    await this.active.get(sessionId)?.done.catch(() => {});
  }

  /** The result of the session's active agent run; undefined when none is running. */
  activeRunResult(sessionId: string): Promise<RunResult> | undefined {
    return this.active.get(sessionId)?.result;
  }

  /** The session's pending steering and follow-up messages (the arrays themselves). */
  queuesOf(sessionId: string): SessionQueues {
    const q = this.queues.get(sessionId) ?? { steering: [], followUp: [] };
    this.queues.set(sessionId, q);
    return q;
  }

  /** Runs the agent loop on `message` to its end. */
  async run(sessionId: string, message: string, opts: RunOptions = {}): Promise<RunResult> {
    // Everything up to executeRun is synchronous: the session is busy as soon as run() returns.
    const session = this.get({ sessionId });
    const client = this.clientFor(session);
    const runId = `run_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const controller = this.claim(session, runId, "agent", opts);
    const events = new RunEvents(
      this.deps.bus,
      session.bus,
      { sessionId, runId, taskId: opts.taskId },
      this.deps.config.log,
      opts.onEvent,
    );
    this.startRunRow(runId, sessionId, opts.taskId, "agent");
    const done = executeRun(
      {
        config: this.deps.config,
        store: this.store,
        bash: this.deps.bash,
        client,
        events,
        queues: this.queuesOf(sessionId),
      },
      { session, runId, taskId: opts.taskId, signal: controller.signal },
      message,
    )
      // Released in the same tick the loop took its last look at the queues: nothing queued in between is lost.
      .finally(() => this.release(sessionId, runId))
      .then(async (result) => {
        await events.flushed();
        return result;
      });
    Object.assign(this.active.get(sessionId)!, { done, result: done });
    return done;
  }

  /** Summarises the session's context (see compact.ts). Busy like a run while it works. */
  async compact(sessionId: string, instructions?: string): Promise<CompactOutcome> {
    const session = this.get({ sessionId });
    const client = this.clientFor(session);
    const runId = `run_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const controller = this.claim(session, runId, "compact", {});
    const events = new RunEvents(this.deps.bus, session.bus, { sessionId, runId }, this.deps.config.log);
    this.startRunRow(runId, sessionId, undefined, "compact");
    const work = compactSession(
      { config: this.deps.config, store: this.store, client, events },
      { session, runId, signal: controller.signal, instructions },
    );
    const done = work.then(
      (o) => this.store.endRun(runId, { status: "completed", turns: 1, toolCalls: 0, usage: o.usage }),
      (err: unknown) => {
        const e = err instanceof ClawError ? err : new ClawError("internal", String(err));
        this.store.endRun(runId, {
          status: controller.signal.aborted ? "cancelled" : "error",
          turns: 1,
          toolCalls: 0,
          usage: { input: 0, output: 0, total: 0 },
          error: { code: e.code, message: e.message },
        });
      },
    );
    this.active.get(sessionId)!.done = done;
    try {
      return await work;
    } finally {
      await done;
      this.release(sessionId, runId);
      await events.flushed();
    }
  }

  /** Aborts the session's active run; false when none was running. */
  abort(sessionId: string): boolean {
    const a = this.active.get(sessionId);
    if (!a) return false;
    a.controller.abort();
    return true;
  }

  /** Aborts any run, then deletes the session with its messages and runs. False when unknown. */
  async delete(sessionId: string): Promise<boolean> {
    if (this.abort(sessionId)) await this.waitForRun(sessionId);
    this.queues.delete(sessionId);
    return this.store.delete(sessionId);
  }

  /** Aborts active runs and waits for them to end. */
  async close(): Promise<void> {
    this.closing = true;
    const runs = [...this.active.values()];
    for (const a of runs) a.controller.abort();
    await Promise.allSettled(runs.map((a) => a.done));
  }

  private clientFor(session: Session) {
    return this.clients.get(resolveProvider(this.deps.config, session.provider));
  }

  /** Marks the session busy with a new run; throws `session_busy`. */
  private claim(session: Session, runId: string, kind: ActiveRun["kind"], opts: RunOptions): AbortController {
    if (this.closing) throw new ClawError("shutting_down", "the claw is closing; no new runs start");
    const busy = this.active.get(session.sessionId);
    if (busy) {
      throw new ClawError(
        "session_busy",
        `session ${session.sessionKey} is running ${busy.runId}; wait for it, abort it, or send the message with behavior "steer" or "follow_up"`,
        {
          sessionId: session.sessionId,
          runId: busy.runId,
        },
      );
    }
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (opts.signal?.aborted) controller.abort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    const unlink = () => opts.signal?.removeEventListener("abort", onAbort);
    this.active.set(session.sessionId, {
      runId,
      taskId: opts.taskId,
      kind,
      controller,
      done: Promise.resolve(),
      unlink,
    });
    return controller;
  }

  private startRunRow(runId: string, sessionId: string, taskId: string | undefined, kind: ActiveRun["kind"]): void {
    try {
      this.store.startRun(runId, sessionId, taskId, kind);
    } catch (err) {
      this.release(sessionId, runId);
      throw err;
    }
  }

  private release(sessionId: string, runId: string): void {
    const a = this.active.get(sessionId);
    if (a?.runId !== runId) return;
    a.unlink();
    this.active.delete(sessionId);
  }
}
