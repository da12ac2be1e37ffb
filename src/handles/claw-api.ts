/**
 * The handles every claw has, local (createClaw) or remote (connectClaw): the derived groups and
 * methods (stream methods included), plus the few that derivation cannot build (session
 * binding, task watch).
 */

import type { Response } from "../core/wire.js";
import type { CallContext } from "../dispatch/dispatch.js";
import type { Task } from "../tasks/task-schema.js";
import type { BusEventStream, BusHandle } from "./bus-handle.js";
import type { Derived } from "./derive.js";
import type { Caller, CallOptions, DerivedGroups, GroupMethods, TopMethods } from "./handle-types.js";
import { createSessionsHandle, type SessionsHandle } from "./session-handle.js";
import { type TaskWatch, type WatchArgs, watchTask } from "./task-watch.js";

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

/** Assembles the shared handles from derived methods. */
export function assembleHandles<U>(derived: Derived): Omit<ClawApi<U>, "call" | "do" | "close"> {
  const groups = derived.groups as Record<
    string,
    Record<string, (args?: object, opts?: CallOptions) => Promise<unknown>>
  >;
  const task = groups.task ?? {};
  const bus = groups.bus ?? {};
  const source = {
    read: (args: object) => bus.read!(args) as never,
    getTask: (args: object) => task.get!(args) as Promise<Task>,
    subscribe: (args: object) => (bus.subscribe as unknown as (a: object) => BusEventStream)(args),
  };
  return {
    ...(derived.top as TopMethods),
    ...(groups as unknown as Omit<DerivedGroups<U>, "bus" | "session" | "task">),
    bus: bus as unknown as BusHandle<U>,
    session: createSessionsHandle(derived),
    task: {
      ...task,
      watch: (args: WatchArgs, opts?: CallOptions) => watchTask(source, args, opts),
    } as unknown as TaskHandle,
  };
}
