/**
 * createClaw: opens the store, builds the services and returns the typed handles. The same
 * dispatcher backs the handles and every adapter.
 */

import { ScopedTokens } from "../access/scoped-tokens.js";
import { StreamTickets } from "../access/stream-tickets.js";
import { SessionService } from "../agent/session-service.js";
import { ApprovalService } from "../approvals/approval-service.js";
import { approvalTasks } from "../approvals/approval-tasks.js";
import { BashRunner } from "../bash/bash-runner.js";
import type { BashResult } from "../bash/bash-schema.js";
import { type AppliedSandbox, resolveSandbox, type SandboxMode } from "../bash/sandbox.js";
import { BusService } from "../bus/bus-service.js";
import { type ClawConfig, type ClawOptions, resolveConfig } from "../config/claw-config.js";
import { abortable } from "../core/abortable.js";
import { CallRegistry } from "../core/call-registry.js";
import { ClawError } from "../core/errors.js";
import type { OpenedStream } from "../core/stream.js";
import type { Response } from "../core/wire.js";
import { type CallContext, Dispatcher } from "../dispatch/dispatch.js";
import { telemetryMiddleware } from "../dispatch/telemetry-middleware.js";
import { type GuideSelection, renderGuide } from "../doc/markdown.js";
import { localStream } from "../handles/bus-handle.js";
import { assembleHandles, type ClawApi } from "../handles/claw-api.js";
import { deriveHandles } from "../handles/derive.js";
import type { Caller, OpInput, OpOutput } from "../handles/handle-types.js";
import { type Identity, loadIdentity } from "../nodes/identity.js";
import { NodeService } from "../nodes/node-service.js";
import { liveNodes } from "../nodes/owners.js";
import { type CatalogEntry, catalog, handleEntries } from "../ops/catalog.js";
import { OPS, type RegisteredOp } from "../ops/index.js";
import type { Services } from "../ops/registry.js";
import { ScheduleService } from "../schedules/schedule-service.js";
import { openStore } from "../store/open-storage.js";
import { StorageGuard } from "../store/storage-guard.js";
import { MemoryService } from "../tasks/memory-service.js";
import { TaskService } from "../tasks/task-service.js";

/** A local claw: the shared handles over one database, plus its configuration and services. */
export interface Claw extends ClawApi<() => void> {
  /** The resolved configuration. */
  readonly config: Readonly<ClawConfig>;
  /** This instance's identity (readable once `ready()` has resolved). */
  readonly identity: Identity;
  /** The sandbox every bash call of this claw runs in ("none" when bwrap is off or missing). */
  readonly sandbox: AppliedSandbox;
  /**
   * Resolves when the claw has started: its identity loaded, tasks a dead process left
   * recovered. Every call waits for it by itself; rejects (as every call then does) when the
   * store cannot start.
   */
  ready(): Promise<void>;
  /** The JSON Schema catalog. */
  ops(): CatalogEntry[];
  /** The Markdown guide of this claw's configuration, or one operation's or section's part of it. */
  doc(select?: GuideSelection): string;
  /**
   * Tells the claw how it is served, once its server listens and holds its token: bash gets
   * them as CLAW_URL and CLAW_TOKEN, and the guide names the address and who needs a token.
   */
  serveAs(serving: Pick<ClawOptions, "url" | "token" | "access" | "secretFiles">): void;
  /**
   * Opens a stream operation in-process (what the local stream handles and the SSE route use):
   * its arguments validated, its head, and its source, not yet started. Throws ClawError.
   */
  openStream<N extends StreamOpName>(name: N, args: OpInput<N>, ctx?: CallContext): OpenedStream<StreamHead<N>>;
  /** What a transport checks before it dispatches a request (see {@link TransportGate}). */
  readonly gate: TransportGate;
  /** @internal Services, for tests that look inside. Adapters use operations, streams and `gate`. */
  readonly services: Services;
}

/**
 * What a transport checks before a request reaches the dispatcher: the scoped tokens it accepts
 * (an agent's CLAW_TOKEN), the single-use stream tickets, and whether storage is still there.
 */
export interface TransportGate {
  /** The live scoped tokens: `resolve(token)` gives a token's grant, passed on as the calls' `grant`. */
  readonly tokens: Pick<ScopedTokens, "resolve">;
  /** The stream tickets: `consume(ticket)` lets one GET stream in. */
  readonly tickets: Pick<StreamTickets, "consume">;
  /** The error writes get once the database files were lost, else undefined. */
  storageError(): ClawError | undefined;
  /** Asks the storage whether it can store now (PostgreSQL: a bounded query): the error `/health` answers, else undefined. */
  storageHealth(): Promise<ClawError | undefined>;
}

/** Names of the stream operations. */
export type StreamOpName = Extract<RegisteredOp, { kind: "stream" }>["name"];

/** What a stream operation's answer says besides its `sub`. */
export type StreamHead<N extends StreamOpName> = Omit<OpOutput<N>, "sub">;

/** Creates a claw: one database, its services and typed handles. Call `close()` when done. */
export function createClaw(options: ClawOptions = {}): Claw {
  const config = resolveConfig(options);
  const sandbox = sandboxOf(config.sandbox); // before the database: a refused sandbox opens nothing
  const store = openStore(config.db, { durability: config.durability });
  const sql = store.sql;
  // Files that can be deleted under a running server: SQLite's. A PostgreSQL outage shows as
  // storage_unavailable from the queries themselves.
  const storage = new StorageGuard(
    store.db ? store.path : ":memory:",
    store.kind === "postgres" ? () => sql.get("SELECT 1 AS one") : undefined,
  );
  let loaded: Identity | undefined;
  const identity = (): Identity => {
    if (!loaded) throw new ClawError("internal", "the claw is still starting; await claw.ready() first");
    return loaded;
  };
  const bus = new BusService(store.events, {
    maxPayloadBytes: config.limits.maxPayloadBytes,
    retention: config.retention,
    beforeAck: () => storage.assertIntact(),
  });
  const bash = new BashRunner(bus, {
    maxConcurrent: config.limits.maxBashProcesses,
    outputCapBytes: config.limits.bashOutputBytes,
    killGraceMs: config.limits.bashKillGraceMs,
    maxPayloadBytes: config.limits.maxPayloadBytes,
    maxEventsPerCall: config.limits.maxEventsPerCall,
    baseEnv: config.env,
    sandbox,
    secretFiles: () => config.secretFiles ?? [],
    // Nodes share the instance id: on PostgreSQL the mark also names the node, so a node can
    // tell the bash of a gone node on its machine from that of a live one.
    owner: () => (store.kind === "postgres" ? `${identity().instance}.${nodes.id}` : identity().instance),
  });
  const nodes = new NodeService({ sql, leaseMs: config.leaseMs, url: () => config.url, log: config.log });
  const tokens = new ScopedTokens();
  const node = nodes.id;
  // The approvals hold tasks (built after them, as the tasks need the sessions that need the approvals).
  let taskService: TaskService | undefined;
  const approvals = new ApprovalService(
    sql,
    bus,
    node,
    approvalTasks(() => taskService!.store),
    config.log,
    config.approval,
  );
  const sessions = new SessionService({
    config,
    sql,
    bus,
    bash,
    tokens,
    node,
    leaseMs: config.leaseMs,
    gates: approvals,
  });
  const tickets = new StreamTickets();
  const tasks = new TaskService({ config, sql, bus, sessions, identity, node });
  taskService = tasks;
  // A decided approval whose run's process is gone: its run goes on here (with its task, if any).
  approvals.setResumer((a, claim) => {
    const resumed = a.taskId
      ? tasks.resumeRun(a.taskId, a.runId, a.callId, claim)
      : sessions.resume(a.sessionId, a.runId, a.callId, { onStart: claim });
    resumed.catch((err: Error) => {
      if (err instanceof ClawError && (err.code === "cancelled" || err.code === "shutting_down")) return;
      config.log(`tsclaw: approval ${a.approvalId}: its run could not go on: ${err.message}`);
    });
  });
  // Several nodes: each heartbeat renews this node's session leases and takes over the work of
  // nodes whose lease lapsed. (On SQLite the start-up recovery is all there is to do.)
  if (store.kind === "postgres")
    nodes.onHeartbeat(async () => {
      await sessions.recoverLostWork();
      await tasks.recoverLostWork();
      await schedules.recoverLostWork();
      await approvals.recover();
      const reaped = bash.reapGoneNodes(identity().instance, await liveNodes(sql, node));
      if (reaped > 0) config.log(`tsclaw: killed ${reaped} bash processes that gone nodes left running here`);
    });
  const memory = new MemoryService({ config, sql });
  // Firings run their actions as operations (bash and out get the same checks as a caller's call).
  const schedules = new ScheduleService({
    sql,
    bus,
    node,
    liveNodes: () => liveNodes(sql, node),
    maxSchedules: config.limits.maxSchedules,
    historyLimit: config.limits.scheduleHistory,
    log: config.log,
    ports: {
      runTask: async (action, origin) =>
        (await tasks.runTask({ ...action, idempotencyKey: `schedule:${origin.scheduleId}:${origin.firingAt}` }, origin))
          .taskId,
      taskOutcome: async (taskId) => {
        const t = await tasks.store.find(taskId);
        if (!t) return undefined;
        const hasReceipt = (await tasks.store.receipts(taskId)).length > 0;
        return { status: t.status, error: t.error, hasReceipt };
      },
      cancelTask: async (taskId) => void (await tasks.cancelTask(taskId)),
      bash: (args, signal) => dispatcher.call("bash", args, { signal }) as Promise<BashResult>,
      out: async (args) => void (await dispatcher.call("out", args)),
    },
  });
  const services: Services = {
    config,
    approvals,
    get db() {
      if (!store.db)
        throw new ClawError(
          "internal",
          "services.db is the SQLite connection; this claw runs on PostgreSQL (use services.sql)",
        );
      return store.db;
    },
    sql,
    get identity() {
      return identity();
    },
    nodes,
    bus,
    bash,
    sessions,
    tasks,
    memory,
    schedules,
    storage,
    tokens,
    tickets,
    calls: new CallRegistry(),
    ops: OPS,
  };
  const dispatcher = new Dispatcher(OPS, () => services, config.validateOutputs, [telemetryMiddleware]);
  // A caller's aborted signal rejects the call at once with its reason; the dispatcher's linked
  // signal ends the work (a wait abandoned, bash killed) on its own.
  const untypedCall = (name: string, args: unknown, ctx?: CallContext) =>
    abortable(ctx?.signal, () => dispatcher.call(name, args, ctx));
  const call = untypedCall as Caller;
  const ready = (async () => {
    await store.ready;
    loaded = await loadIdentity(sql, config.name, config.project);
    // The database lock is held: whatever a previous server on this database left running dies
    // now. Not on PostgreSQL: other nodes may share this machine, and their bash is not ours.
    if (store.kind === "sqlite" && config.db !== ":memory:") {
      const reaped = bash.reapLeftovers();
      if (reaped > 0)
        config.log(`tsclaw: killed ${reaped} bash processes a previous server on ${config.db} left running`);
    }
    approvals.start();
    await sessions.start();
    await tasks.start();
    await approvals.recover();
    await nodes.start();
    await schedules.start();
  })();
  dispatcher.startAfter(ready);

  let closing: Promise<void> | undefined;
  return {
    ...assembleHandles(
      deriveHandles(handleEntries(OPS), untypedCall, (name) =>
        localStream((op, args) => dispatcher.openStream(op, args), name),
      ),
    ),
    config: config as Readonly<ClawConfig>,
    get identity() {
      return identity();
    },
    ready: () => ready,
    call,
    do: (request: unknown, ctx?: CallContext): Promise<Response> => dispatcher.dispatch(request, ctx),
    openStream: <N extends StreamOpName>(name: N, args: OpInput<N>, ctx?: CallContext) =>
      dispatcher.openStream(name, args, ctx) as OpenedStream<StreamHead<N>>,
    ops: () => catalog(OPS),
    /** The Markdown guide of this claw's configuration, or one operation's or section's part of it. */
    doc: (select?: GuideSelection) => renderGuide(OPS, config, select),
    /**
     * Tells the claw how it is served, once its server listens and holds its token: bash gets
     * them as CLAW_URL and CLAW_TOKEN, and the guide names the address and who needs a token.
     */
    serveAs(serving: Pick<ClawOptions, "url" | "token" | "access" | "secretFiles">): void {
      Object.assign(config, serving);
      void nodes.beat(); // records the node's URL now, not a third of a lease later
    },
    sandbox: bash.sandbox,
    gate: {
      tokens,
      tickets,
      storageError: () => (storage.lost === undefined ? undefined : storage.error()),
      storageHealth: () => storage.health(),
    },
    /** @internal Services, for tests that look inside. */
    services,
    /** Stops accepting calls, ends runs (marked interrupted), commits pending events, closes the database. */
    close(): Promise<void> {
      closing ??= (async () => {
        await ready.catch(() => {}); // a start still under way finishes on the open database
        dispatcher.stop(); // aborts waits and bash runs of in-flight calls
        approvals.close(); // first: runs waiting for a decision pause (not end) as they are aborted
        await schedules.close(); // no timer left; bash firings end (interrupted) while the store is open
        await tasks.close();
        await sessions.close();
        await nodes.close();
        await dispatcher.idle(5000); // let in-flight calls answer before the database goes
        await tasks.telemetry.settled(); // their records are written a turn after they answer
        bash.close(); // what keepBackground calls left running
        tokens.revokeAll();
        await bus.close();
        storage.stop();
        await store.close();
      })();
      return closing;
    },
  };
}

function sandboxOf(mode: SandboxMode): AppliedSandbox {
  try {
    return resolveSandbox(mode);
  } catch (err) {
    throw new ClawError("invalid_args", (err as Error).message, { option: "sandbox" });
  }
}
