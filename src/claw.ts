/**
 * createClaw: opens the store, builds the services and returns the typed handles. The same
 * dispatcher backs the handles and every adapter.
 */
import { SessionService } from "./agent/session-service.js";
import { BashRunner } from "./bash/bash-runner.js";
import { type AppliedSandbox, resolveSandbox, type SandboxMode } from "./bash/sandbox.js";
import { BusService } from "./bus/bus-service.js";
import { catalog } from "./catalog.js";
import { type ClawConfig, type ClawOptions, resolveConfig } from "./config.js";
import { type CallContext, Dispatcher } from "./dispatch.js";
import { type GuideSelection, renderGuide } from "./doc/markdown.js";
import { ClawError } from "./errors.js";
import { createBusHandle } from "./handles/bus-handle.js";
import type { Caller, OpInput } from "./handles/caller.js";
import { createSessionHandle } from "./handles/session-handle.js";
import { createTaskHandle } from "./handles/task-handle.js";
import { type Identity, loadIdentity } from "./identity.js";
import { OPS } from "./ops/index.js";
import type { Services } from "./services.js";
import { openDb } from "./store/db.js";
import { createSqliteEventStore } from "./store/sqlite-event-store.js";
import { StorageGuard } from "./store/storage-guard.js";
import { MemoryService } from "./tasks/memory-service.js";
import { TaskService } from "./tasks/task-service.js";
import type { Response } from "./wire.js";

/** Creates a claw: one database, its services and typed handles. Call `close()` when done. */
export function createClaw(options: ClawOptions = {}) {
  const config = resolveConfig(options);
  const sandbox = sandboxOf(config.sandbox); // before the database: a refused sandbox opens nothing
  const opened = openDb(config.db, { durability: config.durability });
  const db = opened.db;
  const storage = new StorageGuard(opened.path);
  const identity: Identity = loadIdentity(db, config.name, config.project);
  const bus = new BusService(createSqliteEventStore(db), {
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
    owner: identity.instance,
  });
  // The database lock is held: whatever a previous server on this database left running dies now.
  if (config.db !== ":memory:") {
    const reaped = bash.reapLeftovers();
    if (reaped > 0)
      config.log(`tsclaw: killed ${reaped} bash processes a previous server on ${config.db} left running`);
  }
  const sessions = new SessionService({ config, db, bus, bash });
  const tasks = new TaskService({ config, db, bus, sessions, identity });
  const memory = new MemoryService({ config, db });
  const services: Services = { config, db, identity, bus, bash, sessions, tasks, memory, storage, ops: OPS };
  const dispatcher = new Dispatcher(OPS, () => services, config.validateOutputs);
  const call = ((name: string, args: unknown, ctx?: CallContext) => dispatcher.call(name, args, ctx)) as Caller;
  sessions.start();
  tasks.start();

  let closing: Promise<void> | undefined;
  return {
    /** The resolved configuration. */
    config: config as Readonly<ClawConfig>,
    /** This instance's identity. */
    identity,
    /** Bus operations and subscriptions. */
    bus: createBusHandle(call, () => bus),
    /** Runs a bash script (see the `bash` operation). */
    bash: (args: OpInput<"bash">, opts: { signal?: AbortSignal } = {}) => call("bash", args, opts),
    /** Sessions. */
    session: createSessionHandle(call),
    /** Tasks. */
    task: createTaskHandle(call),
    /** Continuity memory (memory_add, memory_search). */
    memory: {
      add: (args: OpInput<"memory_add">) => call("memory_add", args),
      search: (args: OpInput<"memory_search">) => call("memory_search", args),
    },
    /** Calls any operation by name with typed arguments. */
    call,
    /** Dispatches a request envelope (any JSON value) and returns the response envelope; never throws. */
    do: (request: unknown, ctx?: CallContext): Promise<Response> => dispatcher.dispatch(request, ctx),
    /** The JSON Schema catalog. */
    ops: () => catalog(OPS),
    /** The Markdown guide of this claw's configuration, or one operation's or section's part of it. */
    doc: (select?: GuideSelection) => renderGuide(OPS, config, select),
    /**
     * Tells the claw how it is served, once its server listens and holds its token: bash gets
     * them as CLAW_URL and CLAW_TOKEN, and the guide names the address and who needs a token.
     */
    serveAs(serving: Pick<ClawOptions, "url" | "token" | "access">): void {
      Object.assign(config, serving);
    },
    /** @internal Services, for adapters and tests. */
    services,
    /** Stops accepting calls, ends runs (marked interrupted), commits pending events, closes the database. */
    close(): Promise<void> {
      closing ??= (async () => {
        dispatcher.stop(); // aborts waits and bash runs of in-flight calls
        await tasks.close();
        await sessions.close();
        await dispatcher.idle(5000); // let in-flight calls answer before the database goes
        bash.close(); // what keepBackground calls left running
        bus.close();
        storage.stop();
        opened.close();
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

/** A claw, as returned by {@link createClaw}. */
export type Claw = ReturnType<typeof createClaw>;
