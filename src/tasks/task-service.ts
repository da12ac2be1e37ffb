/**
 * Tasks: the run contract (run_task, check_task, get_task, list_tasks, cancel_task) and the
 * completion contract (task_create, task_update), with idempotency keys, telemetry and restart
 * recovery. Statuses, phases and transition rules: task-schema.ts and task-status.ts.
 */

import { savePolicy } from "../approvals/approval-policies.js";
import type { BusService } from "../bus/bus-service.js";
import type { ClawConfig } from "../config/claw-config.js";
import { ClawError } from "../core/errors.js";
import { orderedUuid } from "../core/ordered-id.js";
import type { Identity } from "../nodes/identity.js";
import { liveNodes } from "../nodes/owners.js";
import type { Sql } from "../store/sql.js";
import { applyUpdate, type TaskUpdateArgs } from "./completion.js";
import { type Idempotent, onceIn, raceOnce } from "./idempotency.js";
import { clip } from "./run-events.js";
import type { SessionPort, TaskSession } from "./session-port.js";
import { publishTaskEvent, type TaskEvent } from "./task-events.js";
import {
  type CheckTaskArgs,
  type CheckTaskResult,
  clampWait,
  type ListTasksArgs,
  type RunTaskArgs,
  type TaskCreateArgs,
} from "./task-inputs.js";
import { listTasks } from "./task-list.js";
import { TaskNotifier } from "./task-notifier.js";
import { claimQueuedRunTasks, endLostRunTasks } from "./task-recovery.js";
import { TaskRunner } from "./task-runner.js";
import type { Task, TaskInclude } from "./task-schema.js";
import { ACTIONABLE, continuePolling, nextActionFor, TERMINAL } from "./task-status.js";
import { type TaskRecord, TaskStore } from "./task-store.js";
import { toTask } from "./task-view.js";
import { waitForTask } from "./task-waiter.js";
import { TASKS_BUS } from "./tasks-bus.js";
import { TaskTelemetry } from "./telemetry.js";

/** What the task service is built from. */
export interface TaskServiceDeps {
  config: ClawConfig;
  sql: Sql;
  bus: BusService;
  sessions: SessionPort;
  /** This instance's identity (loaded before the service starts). */
  identity: () => Identity;
  /** This process's node id: the owner of the run tasks it creates and claims. */
  node: string;
}

/** Owns tasks, receipts and telemetry. */
export class TaskService {
  /** Task rows and receipts. */
  readonly store: TaskStore;
  /** Per-task change notification (check_task waits on it). */
  readonly notifier = new TaskNotifier();
  /** Request telemetry of the task operations. */
  readonly telemetry: TaskTelemetry;
  private readonly runner: TaskRunner;
  private closed = false;
  private unfollow = () => {};

  constructor(readonly deps: TaskServiceDeps) {
    // The one place a task change is announced: waiters wake and the `tasks` bus gets its event.
    this.store = new TaskStore(deps.sql, (t) => {
      publishTaskEvent(deps.bus, t, deps.config.log);
      this.notifier.changed(t);
    });
    this.telemetry = new TaskTelemetry(
      deps.sql,
      deps.config.env.CLAW_TELEMETRY_LOG === "1" ? deps.config.log : undefined,
    );
    this.runner = new TaskRunner(this.store, deps.sessions, deps.config.log, this.telemetry);
  }

  /**
   * Restart recovery: run tasks a gone node left in progress become error (interrupted after a
   * SQLite restart, node_lost on PostgreSQL); its queued ones are claimed and start here. With
   * several nodes (PostgreSQL), the node heartbeat repeats that recovery, and task changes
   * made on other nodes (they arrive on the tasks bus) wake this node's check_task waits and
   * stop its runs of tasks cancelled or ended elsewhere.
   */
  async start(): Promise<void> {
    if (this.deps.sql.dialect === "postgres")
      this.unfollow = this.deps.bus.listen(TASKS_BUS, (events) => {
        for (const e of events) this.onTaskEvent(JSON.parse(e.payloadJson) as TaskEvent);
      });
    await this.recoverLostWork();
    // A task waiting for an approval keeps its phase: its run goes on once the approval is decided.
    const settled = (phase: string | null) => phase === "waiting_human" || phase === "awaiting_approval";
    for (const status of ["blocked", "needs_human"] as const) {
      for (const t of await this.store.runTasksWithStatus(status)) {
        if (settled(t.phase)) continue;
        await this.store.change(t.id, (now) =>
          now.status === status && !settled(now.phase) ? { patch: { phase: "waiting_human" } } : undefined,
        );
      }
    }
  }

  /** Ends the in-progress run tasks of gone nodes and starts their queued ones here. */
  async recoverLostWork(): Promise<void> {
    if (this.closed) return;
    const live = await liveNodes(this.deps.sql, this.deps.node);
    await endLostRunTasks(this.store, live);
    for (const t of await claimQueuedRunTasks(this.deps.sql, this.deps.node, live)) this.runner.enqueue(t);
  }

  /**
   * Resumes the task's run, paused on call `callId` (an approval) by a process that is gone.
   * `claim` decides who resumes it; the winner's claim takes the task over for this node (in the
   * claim's own statement: approval-store.ts). A task that ended meanwhile (cancelled) is not
   * resumed.
   */
  async resumeRun(taskId: string, runId: string, callId: string, claim: () => Promise<boolean>): Promise<void> {
    const t = await this.store.find(taskId);
    if (!t || this.closed || TERMINAL.has(t.status)) return;
    this.runner.resume(t, runId, callId, claim);
  }

  /** A task changed (here or on another node). */
  private onTaskEvent(e: TaskEvent): void {
    if (this.closed || e?.type !== "task") return;
    // A change made on another node: the waits here learn of it from a fresh read. This node's
    // own changes come back on the bus too, and were announced as they were written.
    if (this.notifier.waiting(e.taskId) && !this.notifier.announced(e.taskId, e.version))
      void this.store.find(e.taskId).then(
        (t) => t && this.notifier.changed(t),
        () => {},
      );
    if ((e.status === "cancelled" || e.status === "error") && this.runner.holds(e.taskId)) {
      // Cancelled, or declared lost, elsewhere: a run of it here stops, a queued one never starts.
      // The event only says where to look: the task's record decides (one read, and only on the
      // node that holds the task).
      void this.store.find(e.taskId).then(
        (t) => {
          if (t?.status !== "cancelled" && t?.status !== "error") return;
          if (!this.runner.dequeue(t.id) && this.runner.isRunning(t.id)) void this.runner.stop(t.id);
        },
        () => {},
      );
    }
  }

  /** Stops runners (their tasks become error/interrupted) and answers every waiting check_task. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unfollow();
    this.notifier.closeAll();
    await this.runner.close();
    this.notifier.closeAll();
  }

  /** A task as clients see it (its receipts read only when included). */
  async view(t: TaskRecord, include: TaskInclude = []): Promise<Task> {
    return toTask(t, include, include.includes("receipts") ? await this.store.receipts(t.id) : undefined);
  }

  /**
   * Runs `create` once per idempotency key: in one transaction with the key's record, so a
   * failure leaves neither behind (without a key it simply runs).
   */
  private idempotent<T>(
    scope: string,
    key: string | undefined,
    args: unknown,
    create: (store: TaskStore) => Promise<T>,
  ): Promise<Idempotent<T>> {
    if (key === undefined) return create(this.store).then((result) => ({ result, replayed: false }));
    return raceOnce(() => this.store.tx((store) => onceIn(store.sql, scope, key, args, () => create(store))));
  }

  /**
   * run_task: creates the task (once per idempotency key) and queues it on its session. A
   * schedule's firing passes `origin`, which the task then carries.
   */
  async runTask(args: RunTaskArgs, origin?: { scheduleId: string; firingAt: number }) {
    const { idempotencyKey, ...request } = args;
    const firstLine = request.prompt.split("\n").find((l) => l.trim() !== "") ?? request.prompt;
    // The session is found or made in the same transaction as the task and its key's record.
    // What the (last) attempt wrote and read is kept: a new task is not read back, and its run
    // starts from the session read here.
    const kept: { created?: { task: TaskRecord; session: TaskSession } } = {};
    const { result, replayed } = await this.idempotent("run_task", idempotencyKey, request, async (store) => {
      kept.created = undefined;
      const task = {
        id: `task_${orderedUuid()}`,
        kind: "run" as const,
        title: request.title ?? clip(firstLine, 80),
        body: null,
        prompt: request.prompt,
        project: request.project ?? this.deps.config.project,
        status: "todo" as const,
        phase: "queued" as const,
        scheduleId: origin?.scheduleId,
        firingAt: origin?.firingAt,
      };
      const text = origin
        ? `created by schedule ${origin.scheduleId} (queued on its session)`
        : "created (queued on its session)";
      const { task: t, session } = await this.insertRunTask(request, store, task, text);
      // Stored with the task, so its run (here or after a restart) is judged by it.
      if (request.approval) await savePolicy(store.sql, t.id, request.approval);
      kept.created = { task: t, session };
      return { taskId: t.id };
    });
    const { created } = kept;
    const t = !replayed && created ? created.task : await this.store.get(result.taskId);
    if (!replayed) this.runner.enqueue(t, created?.session);
    return {
      taskId: t.id,
      jobId: t.id,
      sessionKey: t.sessionKey!,
      sessionId: t.sessionId!,
      status: t.status,
      version: t.version,
      replayed,
      continuePolling: continuePolling(t.status),
      nextAction: nextActionFor(t),
    };
  }

  /**
   * Inserts a run task into its session (found or made). On PostgreSQL the session of its key is
   * read in the insert's own statement (one round trip less per task); a session not found there
   * is made, and one whose provider cannot run here is refused as before.
   */
  private async insertRunTask(
    request: Omit<RunTaskArgs, "idempotencyKey">,
    store: TaskStore,
    task: Parameters<TaskStore["insertInSession"]>[0],
    text: string,
  ): Promise<{ task: TaskRecord; session: TaskSession }> {
    const node = this.deps.node;
    const sessions = this.deps.sessions;
    if (request.provider !== undefined) sessions.checkProvider(request.provider);
    const read = request.sessionKey !== undefined && sessions.readByKey(request.sessionKey, request.provider);
    const folded = read ? await store.insertInSession(task, text, node, read) : undefined;
    if (folded?.task) return { task: folded.task, session: folded.session! };
    const session = await this.sessionFor(request, store.sql, folded);
    const { sessionKey, sessionId, model, provider, bus } = session;
    return { task: await store.insert({ ...task, sessionKey, sessionId, model, provider, bus }, text, node), session };
  }

  /**
   * The session a run_task runs in: the one of its sessionKey (as `known` found it, when given),
   * else a new one; without a provider of the request's own (checked by the caller), the
   * session's is checked first.
   */
  private async sessionFor(
    request: Omit<RunTaskArgs, "idempotencyKey">,
    q: Sql,
    known?: { session?: TaskSession },
  ): Promise<TaskSession> {
    const sessions = this.deps.sessions;
    let existing: TaskSession | undefined = known?.session;
    if (!known && request.sessionKey !== undefined) existing = await findSession(sessions, request.sessionKey, q);
    if (request.provider === undefined) sessions.checkProvider(existing?.provider);
    if (existing) return existing;
    // Not found just now: created without looking for it again, unless its key was taken meanwhile.
    const args = { sessionKey: request.sessionKey, bus: request.bus, model: request.model, provider: request.provider };
    return (await sessions.create(args, q)) ?? sessions.ensure(args, q);
  }

  /** check_task: counts the poll, waits as asked, returns the snapshot and what to do next. */
  async checkTask(args: CheckTaskArgs, signal: AbortSignal): Promise<CheckTaskResult> {
    const taskId = (args.taskId ?? args.jobId)!;
    const waitMs = this.closed ? 0 : clampWait(args.waitMs);
    let pollNumber = 0;
    const { task, waitedMs } = await waitForTask(
      this.store,
      this.notifier,
      taskId,
      { waitMs, until: args.until, afterVersion: args.afterVersion, signal },
      async () => {
        const counted = await this.store.countPoll(taskId);
        pollNumber = counted.pollCount;
        return counted;
      },
    );
    return {
      task: await this.view(task, args.include),
      isTerminal: TERMINAL.has(task.status),
      isActionable: ACTIONABLE.has(task.status),
      continuePolling: continuePolling(task.status),
      nextAction: nextActionFor(task),
      waitedMs,
      pollNumber,
    };
  }

  /** get_task: the snapshot, immediately. */
  async getTask(taskId: string, include: TaskInclude = []): Promise<Task> {
    return this.view(await this.store.get(taskId), include);
  }

  /** list_tasks. */
  listTasks(args: ListTasksArgs) {
    return listTasks(this.deps.sql, args);
  }

  /** cancel_task: a queued task is just cancelled; a running one also has its run (and bash) stopped. Ended tasks are returned unchanged. */
  async cancelTask(taskId: string): Promise<Task> {
    // Straight to the write (it reads the task itself): the cancel's commit, and the wake of
    // whoever waits on the task, come one read sooner. A queued run never starts.
    const dequeued = this.runner.dequeue(taskId);
    const written = await this.store.change(taskId, (current) => {
      if (TERMINAL.has(current.status)) return undefined;
      const now = Date.now();
      return {
        patch: { status: "cancelled", phase: "ended", endedAt: now, latestUpdate: { at: now, text: "cancelled" } },
        timeline: `cancelled (was ${current.status})`,
      };
    });
    // Ended already (returned unchanged), or unknown (not_found): as stored.
    if (!written) return this.view(await this.store.get(taskId));
    // No run of it in this process (a work task, or a run held by another node): the write is the answer.
    if (!dequeued && !this.runner.isRunning(taskId)) return this.view(written);
    await this.runner.stop(taskId);
    return this.view(await this.store.get(taskId));
  }

  /** task_create: a tracked work task (status todo, version 1), once per idempotency key. */
  async createTask(args: TaskCreateArgs): Promise<Task & { replayed: boolean }> {
    const { idempotencyKey, ...request } = args;
    const { result, replayed } = await this.idempotent("task_create", idempotencyKey, request, async (store) => {
      const t = await store.insert(
        {
          id: `task_${orderedUuid()}`,
          kind: "work",
          title: request.title,
          body: request.body ?? null,
          prompt: null,
          sessionKey: null,
          sessionId: null,
          project: request.project ?? this.deps.config.project,
          status: "todo",
          phase: "open",
          model: null,
          provider: null,
          bus: null,
        },
        "created",
      );
      return { taskId: t.id };
    });
    return { ...(await this.getTask(result.taskId)), replayed };
  }

  /** task_update with the completion contract; the result includes the task's receipts. */
  async updateTask(args: TaskUpdateArgs): Promise<Task & { replayed: boolean }> {
    const { task, replayed } = await applyUpdate(
      this.store,
      { instance: this.deps.identity().instance, runActive: (id) => this.runner.isRunning(id) },
      args,
    );
    return { ...(await this.view(task, ["receipts"])), replayed };
  }
}

async function findSession(sessions: SessionPort, sessionKey: string, q: Sql): Promise<TaskSession | undefined> {
  try {
    return await sessions.get({ sessionKey }, q);
  } catch (err) {
    if (err instanceof ClawError && err.code === "not_found") return undefined;
    throw err;
  }
}
