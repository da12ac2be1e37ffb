/**
 * Sessions and their runs. The session operations and the task runner both go through this
 * service: it owns the session rows, the one run queue per session (prompts, tasks and
 * compactions take turns in arrival order; run-scheduler.ts) and the durable queue of
 * acknowledged prompts, steering and follow-up messages (session-queue.ts).
 *
 * API used by the task runner:
 * - `ensure(args, q?)` resolves to the session for a known `sessionKey`, else creates one.
 * - `get(ref, q?)` finds by `sessionId` or `sessionKey`; rejects `not_found`.
 * - `checkProvider(provider?)` throws `invalid_args` (unknown provider) or `provider_auth_missing`.
 * - `run(sessionId, message, {taskId, signal, onStart, onEvent})` joins the session's
 *   queue at once and resolves with the {@link RunResult} once the run has ended (failures are
 *   a status); it rejects when the job never started (`cancelled` through `signal`,
 *   `shutting_down`, `not_found`, `provider_auth_missing`).
 */

import type { ScopedTokens } from "../access/scoped-tokens.js";
import type { BashRunner } from "../bash/bash-runner.js";
import type { BusService } from "../bus/bus-service.js";
import { assertWritableBus } from "../bus/reserved-buses.js";
import type { ClawConfig } from "../config/claw-config.js";
import { ClawError } from "../core/errors.js";
import { orderedHex } from "../core/ordered-id.js";
import { liveNodes } from "../nodes/owners.js";
import type { Sql } from "../store/sql.js";
import type { RunGates } from "./agent-loop.js";
import type { CompactOutcome } from "./compact.js";
import { ContextCache } from "./context-cache.js";
import { ModelCaller } from "./model-call.js";
import { newSession } from "./new-session.js";
import { ModelClients, resolveProvider, usableProviders } from "./provider.js";
import { remoteRuns } from "./remote-runs.js";
import { RunScheduler } from "./run-scheduler.js";
import { SessionControl } from "./session-control.js";
import { LeaseGate, LOCAL_GATE, type SessionGate } from "./session-gate.js";
import { compactJob, type PreparedRun, type RunOptions, runJob } from "./session-jobs.js";
import { recoverSessions } from "./session-recovery.js";
import {
  activeSessionIds,
  type RunPlaces,
  runningSessions,
  runState,
  type SessionRunState,
} from "./session-run-state.js";
import { type EnsureSessionArgs, hasRef, type RunResult, type Session, type SessionRef } from "./session-schemas.js";
import { type SessionRead, SessionStore } from "./session-store.js";

export type { RunResult, Session } from "./session-schemas.js";

/** What the session service is built from. */
export interface SessionServiceDeps {
  config: ClawConfig;
  sql: Sql;
  bus: BusService;
  bash: BashRunner;
  /** Where each run's scoped CLAW_TOKEN is minted. */
  tokens: ScopedTokens;
  /** This process's node id: the owner of its runs, queued prompts and session leases. */
  node: string;
  /** How long a node may miss heartbeats before its work is recovered and its session leases lapse. */
  leaseMs: number;
  /** Approvals of the runs' bash calls. Default: none (every call runs) */
  gates?: RunGates;
}

export type { RunOptions } from "./session-jobs.js";

export type { SessionRunState } from "./session-run-state.js";

const newRunId = () => `run_${orderedHex()}`;

/** Owns sessions, messages and runs. */
export class SessionService {
  /** Row access; read-only operations use it directly. */
  readonly store: SessionStore;
  private readonly scheduler: RunScheduler;
  /** One run per session across nodes (a no-op on SQLite, where this process is the only one). */
  private readonly gate: SessionGate;
  /** Requests to the nodes running other sessions (PostgreSQL only). */
  private readonly control?: SessionControl;
  private closed = false;
  private readonly clients = new ModelClients();
  private readonly model: ModelCaller;
  /** Recently run sessions' contexts, so a run reads only what was stored since the last one. */
  private readonly contexts = new ContextCache();
  /** Where `state`, `running` and `activeSessionIds` look for runs. */
  private readonly places: RunPlaces;

  constructor(readonly deps: SessionServiceDeps) {
    this.store = new SessionStore(deps.sql, deps.node);
    this.gate = deps.sql.dialect === "postgres" ? new LeaseGate(deps.sql, deps.node, deps.leaseMs) : LOCAL_GATE;
    this.scheduler = new RunScheduler(this.gate);
    if (deps.sql.dialect === "postgres")
      this.control = new SessionControl(
        deps.bus,
        deps.node,
        (sessionId, runId) => this.abortHere(sessionId, runId),
        async (node) => node !== deps.node && (await liveNodes(deps.sql, deps.node)).includes(node),
      );
    this.model = new ModelCaller(deps.config.log);
    this.places = { scheduler: this.scheduler, store: this.store, sql: deps.sql, node: deps.node };
  }

  /**
   * Restart recovery: runs a dead process left "running" end as interrupted, then prompts
   * acknowledged before the last shutdown run, in order.
   */
  async start(): Promise<void> {
    this.control?.start();
    await this.recover(true);
  }

  /**
   * With several nodes (the node heartbeat calls it): renews this node's session leases, then
   * recovers the runs and queued prompts of nodes that are gone.
   */
  async recoverLostWork(): Promise<void> {
    for (const sessionId of await this.gate.renew()) {
      // Lost while running here (this node was paused or cut off past its lease): the run stops
      // and its bash is killed; its writes were already refused (fenced messages).
      const job = this.scheduler.running(sessionId);
      if (!job) continue;
      this.deps.config.log(`tsclaw: session ${sessionId}: this node lost its lease; run ${job.runId} stopped`);
      job.controller.abort();
    }
    await this.recover(false);
  }

  /** Runs of gone nodes end as interrupted; their queued prompts are claimed and run here, in order. */
  private async recover(restart: boolean): Promise<void> {
    if (this.closed) return;
    await recoverSessions(
      {
        sql: this.deps.sql,
        node: this.deps.node,
        store: this.store,
        log: this.deps.config.log,
        checkProvider: (session) => this.clientFor(session),
        runQueued: (session, queuedId) =>
          void this.submitAgent(session.sessionId, Promise.resolve({ session, first: { queuedId } }), {}).catch(
            () => {},
          ),
      },
      restart,
    );
  }

  /** Resolves to the session of `sessionKey` when it exists, else creates one (inside `q`'s transaction when given). */
  async ensure(args: EnsureSessionArgs = {}, q?: Sql): Promise<Session> {
    if (args.bus !== undefined) assertWritableBus(args.bus, "a session's bus");
    if (args.sessionKey !== undefined) {
      const existing = await this.store.find({ sessionKey: args.sessionKey }, q);
      if (existing) return existing;
    }
    const session = newSession(this.deps.config, args);
    if (await this.store.insert(session, q)) return session;
    // Someone else created the key between the two statements: theirs is the session.
    return (await this.store.find({ sessionKey: session.sessionKey }, q))!;
  }

  /** Creates a session whose key must be new; undefined when it is taken. */
  async create(args: EnsureSessionArgs, q?: Sql): Promise<Session | undefined> {
    const session = newSession(this.deps.config, args);
    return (await this.store.insert(session, q)) ? session : undefined;
  }

  /** The session named by `ref` (sessionId, sessionKey, or session = either); rejects `not_found`. */
  async get(ref: SessionRef, q?: Sql): Promise<Session> {
    if (!hasRef(ref))
      throw new ClawError("invalid_args", "name the session with sessionId or sessionKey", {
        issues: [{ path: "sessionId", message: "sessionId or sessionKey is required" }],
      });
    const s = await this.store.find(ref, q);
    if (!s)
      throw new ClawError(
        "not_found",
        `no session ${ref.sessionId ?? ref.sessionKey ?? ref.session}; start_session creates one (with sessionKey to name it), list_sessions lists them`,
        { ...ref },
      );
    return s;
  }

  /**
   * PostgreSQL: the read of the session of `sessionKey` for a task's insert to fold in (without
   * `provider`, the task goes in only if the session's own provider can run here); undefined on
   * SQLite, where a statement costs no round trip.
   */
  readByKey(sessionKey: string, provider?: string): SessionRead | undefined {
    if (this.deps.sql.dialect !== "postgres") return undefined;
    return this.store.readByKey(sessionKey, provider === undefined ? usableProviders(this.deps.config) : undefined);
  }

  /** Throws `invalid_args` for an unknown provider, `provider_auth_missing` (naming the variable) without its key. Default: the claw's provider */
  checkProvider(provider?: string): void {
    resolveProvider(this.deps.config, provider);
  }

  /** Changes model (and provider, which must be known and have its key). */
  async setModel(sessionId: string, model: string, provider?: string): Promise<Session> {
    if (provider !== undefined) this.checkProvider(provider);
    return this.updated(sessionId, await this.store.update(sessionId, { model, ...(provider ? { provider } : {}) }));
  }

  /** Renames the session. */
  async setName(sessionId: string, name: string): Promise<Session> {
    return this.updated(sessionId, await this.store.update(sessionId, { name }));
  }

  /** True while a run (or a compaction) of the session is active on this node. */
  isRunning(sessionId: string): boolean {
    return this.scheduler.busy(sessionId);
  }

  /** Of `sessionIds`, those with an active run or compaction, on this node or another live one. */
  running(sessionIds: readonly string[]): Promise<Set<string>> {
    return runningSessions(this.places, sessionIds);
  }

  /** Ids of sessions with an active run or compaction, on any live node. */
  activeSessionIds(): Promise<string[]> {
    return activeSessionIds(this.places);
  }

  /** What the session is doing now and what waits (see {@link runState}). */
  state(sessionId: string): Promise<SessionRunState> {
    return runState(this.places, sessionId);
  }

  /** Waits for the session's active run or compaction to end (resolves at once when idle). */
  waitForRun(sessionId: string): Promise<void> {
    return this.scheduler.idle(sessionId);
  }

  /**
   * Joins the session's run queue with `message`, at once: calls join in call order. When the
   * session is busy the message is stored first (a queued prompt survives a restart and runs
   * then); a task's prompt is already stored with its task. The session is read and its
   * provider checked while the job waits; a failure there rejects the caller and drops the job.
   */
  run(sessionId: string, message: string, opts: RunOptions = {}): Promise<RunResult> {
    // Not async: the caller's handlers chain onto the job's own promise, so they run before the
    // session's next job starts (an async wrapper would add ticks and let it start first).
    try {
      const queued = this.scheduler.busy(sessionId) && opts.taskId === undefined;
      const prepared = (async () => {
        const session = opts.session?.sessionId === sessionId ? opts.session : await this.get({ sessionId });
        this.clientFor(session); // provider_auth_missing before anything is stored
        const first = queued
          ? { queuedId: await this.store.queue.add(sessionId, "prompt", message) }
          : { text: message };
        return { session, first };
      })();
      return this.submitAgent(sessionId, prepared, opts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Resumes stored run `runId`, paused on call `callId` (an approval), in the session's turn like
   * any run: it goes on from that call with the history read once. `opts.onStart` claims the
   * resume (false: another node or waiter has it, and nothing runs here).
   */
  resume(sessionId: string, runId: string, callId: string, opts: RunOptions = {}): Promise<RunResult> {
    const prepared = (async () => {
      const session = await this.get({ sessionId });
      this.clientFor(session);
      return { session, first: { resume: { callId } } };
    })();
    return this.submitAgent(sessionId, prepared, opts, runId);
  }

  /**
   * `prompt`: with a behavior while an agent run is active, the message joins that run's queue
   * (steering or follow-up) and the caller gets that run's result; otherwise a run of its own.
   */
  async prompt(sessionId: string, message: string, behavior?: "steer" | "follow_up"): Promise<RunResult> {
    const active = this.scheduler.active(sessionId);
    if (!(behavior && active?.result)) return this.run(sessionId, message);
    this.clientFor(await this.get({ sessionId }));
    await this.store.queue.add(sessionId, behavior, message);
    return active.result;
  }

  /** `steer` / `follow_up`: stores the message for the active run (or the next one). */
  async enqueue(sessionId: string, kind: "steer" | "follow_up", message: string) {
    await this.store.queue.add(sessionId, kind, message);
    const pending = await this.store.queue.counts(sessionId);
    return {
      queued: true,
      pending: kind === "steer" ? pending.steering : pending.followUp,
      running: (await this.running([sessionId])).has(sessionId),
    };
  }

  /** Drops pending steering and follow-up messages; returns how many. */
  clearQueue(sessionId: string): Promise<number> {
    return this.store.queue.clear(sessionId);
  }

  /** Summarises the session's context (see compact.ts), in its turn like a run. */
  compact(sessionId: string, instructions?: string): Promise<CompactOutcome> {
    const prepared = (async () => {
      const session = await this.get({ sessionId });
      return { session, client: this.clientFor(session) };
    })();
    const job = compactJob(this.jobDeps(), { prepared, runId: newRunId(), instructions });
    try {
      this.scheduler.submit(sessionId, job);
    } catch (err) {
      prepared.catch(() => {});
      return Promise.reject(err);
    }
    return job.outcome;
  }

  /**
   * Aborts what the session is doing now (run or compaction); false when it was idle. A run on
   * another node is aborted there: this resolves once that node reports it stopped, and rejects
   * `node_unreachable` when it does not answer.
   */
  async abort(sessionId: string): Promise<boolean> {
    const job = this.scheduler.active(sessionId);
    if (job) {
      job.controller.abort();
      return true;
    }
    const remote = this.control && (await remoteRuns(this.deps.sql, this.deps.node, [sessionId]))[0];
    if (!remote) return false;
    return this.control!.abort(remote.node, sessionId, remote.runId);
  }

  /** Another node asks: aborts run `runId` of the session here, resolving once it has stopped. */
  private async abortHere(sessionId: string, runId: string): Promise<boolean> {
    const job = this.scheduler.active(sessionId);
    if (job?.runId !== runId) return false;
    job.controller.abort();
    await this.waitForRun(sessionId);
    return true;
  }

  /** Aborts what runs (here or on another node), drops what waits, then deletes the session with its messages and runs. False when unknown. */
  async delete(sessionId: string): Promise<boolean> {
    this.scheduler.dropWaiting(sessionId, new ClawError("not_found", "the session was deleted"));
    // A run on another node has stopped when abort resolves; one here, when its job has ended.
    if (await this.abort(sessionId)) await this.waitForRun(sessionId);
    this.contexts.forget(sessionId);
    return this.store.delete(sessionId);
  }

  /** Aborts active runs, drops waiting ones (queued prompts stay stored for the next start) and waits. */
  async close(): Promise<void> {
    this.closed = true;
    this.control?.close();
    await this.scheduler.close();
    await this.clients.close();
  }

  private updated(sessionId: string, s: Session | undefined): Session {
    if (!s) throw new ClawError("not_found", `no session ${sessionId}`, { sessionId });
    return s;
  }

  private submitAgent(
    sessionId: string,
    prepared: Promise<PreparedRun>,
    opts: RunOptions,
    runId = newRunId(),
  ): Promise<RunResult> {
    const job = runJob(this.jobDeps(), { clientFor: (s) => this.clientFor(s), runId, prepared, opts });
    try {
      this.scheduler.submit(sessionId, job);
    } catch (err) {
      // Never queued: a prompt already stored stays for the next start (it is shutting down).
      prepared.catch(() => {});
      return Promise.reject(err);
    }
    return job.result;
  }

  private jobDeps() {
    const { config, bus, bash, tokens } = this.deps;
    return {
      config,
      bus,
      bash,
      tokens,
      store: this.store,
      model: this.model,
      contexts: this.contexts,
      gates: this.deps.gates,
    };
  }

  private clientFor(session: Session) {
    return this.clients.get(resolveProvider(this.deps.config, session.provider));
  }
}
