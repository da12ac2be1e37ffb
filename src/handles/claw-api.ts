/**
 * The handles every claw has, local (createClaw) or remote (connectClaw): the derived groups and
 * methods (stream methods included), plus the few that derivation cannot build (session
 * binding, task watch).
 */

import type { Response } from "../core/wire.js";
import type { CallContext } from "../dispatch/dispatch.js";
import type { BusHandle } from "./bus-handle.js";
import type { Derived } from "./derive.js";
import type { Caller, CallOptions, DerivedGroups, GroupMethods, TopMethods } from "./handle-types.js";
import { createSessionsHandle, type SessionsHandle } from "./session-handle.js";
import { type TaskWatch, type WatchArgs, type WatchSource, watchTask } from "./task-watch.js";

/** `claw.task`: the task operations, plus `watch`. */
export interface TaskHandle extends GroupMethods<"task"> {
  /** Task snapshots, one per accepted change (from the `tasks` bus), ending after the terminal one. */
  watch(args: WatchArgs, opts?: CallOptions): TaskWatch;
}

/**
 * The handles shared by local and remote claws. `Unsubscribe` is what a callback subscription
 * returns (`() => void` locally, `() => Promise<void>` remotely).
 */
export interface ClawApi<Unsubscribe = () => void>
  extends Omit<DerivedGroups<Unsubscribe>, "bus" | "session" | "task">,
    TopMethods {
  /** Bus operations and subscriptions. */
  bus: BusHandle<Unsubscribe>;
  /** Sessions, and handles bound to one session. */
  session: SessionsHandle;
  /** Tasks. */
  task: TaskHandle;
  /** Calls any operation by name with typed arguments; rejects with ClawError. */
  call: Caller;
  /** Dispatches a request envelope and returns the response envelope; never throws. */
  do(request: unknown, ctx?: CallContext): Promise<Response>;
  /** Ends the claw (local: closes the database; remote: closes its connections). */
  close(): Promise<void>;
}

/** The derived methods under the types the registry computes for them. */
interface TypedDerived<U> {
  top: TopMethods;
  groups: DerivedGroups<U>;
}

/**
 * The one assertion of the handles: derivation builds each method by name from a catalog, which
 * the compiler cannot follow. The catalog is the registry's own (createClaw) or the server's,
 * made from the same registry (connectClaw), so the methods are those `TopMethods` and
 * `DerivedGroups` compute from it, with their arguments and results.
 */
function typed<U>(derived: Derived): TypedDerived<U> {
  return derived as unknown as TypedDerived<U>;
}

/** Assembles the shared handles from derived methods. */
export function assembleHandles<U>(derived: Derived): Omit<ClawApi<U>, "call" | "do" | "close"> {
  const { top, groups } = typed<U>(derived);
  const { bus, session, task, ...rest } = groups;
  const source: WatchSource = {
    read: (args) => bus.read(args),
    getTask: (args) => task.get(args),
    subscribe: (args) => bus.subscribe(args),
  };
  return {
    ...top,
    ...rest,
    bus,
    session: createSessionsHandle(derived, session),
    task: { ...task, watch: (args, opts) => watchTask(source, args, opts) },
  };
}
