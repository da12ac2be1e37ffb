/**
 * `task.watch(taskId)`: Task snapshots, one per accepted change, following the `tasks` bus, ending
 * after the terminal one. Written against calls and a bus subscription only, so the local and the
 * remote claw share it.
 */
import type { Task } from "../tasks/task-schema.js";
import { TERMINAL } from "../tasks/task-status.js";
import { TASKS_BUS } from "../tasks/tasks-bus.js";
import type { BusEventStream, SubscribeArgs } from "./bus-handle.js";
import type { CallOptions, OpInput, OpOutput } from "./handle-types.js";

/** What a watch needs from a claw. */
export interface WatchSource {
  read(args: OpInput<"read">): Promise<OpOutput<"read">>;
  getTask(args: OpInput<"get_task">): Promise<Task>;
  subscribe(args: SubscribeArgs): BusEventStream;
}

/** An async iterator of a task's snapshots; `close()` (or `break`) ends it. */
export interface TaskWatch extends AsyncIterableIterator<Task> {
  close(): void;
}

/** Arguments of `task.watch`. */
export interface WatchArgs {
  taskId: string;
}

function isChangeOf(payload: unknown, taskId: string, after: number): boolean {
  const p = payload as { type?: unknown; taskId?: unknown; version?: unknown } | null;
  return p?.type === "task" && p.taskId === taskId && typeof p.version === "number" && p.version > after;
}

/** Watches one task: the current snapshot first, then one per newer version, until it is terminal. */
export function watchTask(source: WatchSource, args: WatchArgs, opts: CallOptions = {}): TaskWatch {
  let stream: BusEventStream | undefined;
  let closed = false;
  const close = () => {
    closed = true;
    stream?.close();
  };
  opts.signal?.addEventListener("abort", close, { once: true });
  async function* run(): AsyncGenerator<Task> {
    try {
      // The cursor comes first: a change committed after it is on the bus after it, so none is missed.
      const { lastSeq } = await source.read({ bus: TASKS_BUS, after: Number.MAX_SAFE_INTEGER, limit: 1 });
      let task = await source.getTask({ taskId: args.taskId });
      if (closed) return;
      yield task;
      if (TERMINAL.has(task.status)) return;
      stream = source.subscribe({ bus: TASKS_BUS, after: lastSeq });
      if (closed) stream.close();
      for await (const event of stream) {
        if (!isChangeOf(event.payload, args.taskId, task.version)) continue;
        const next = await source.getTask({ taskId: args.taskId });
        if (next.version <= task.version) continue; // an earlier read already showed this change
        task = next;
        if (closed) return;
        yield task;
        if (TERMINAL.has(task.status)) return;
      }
    } finally {
      stream?.close();
      opts.signal?.removeEventListener("abort", close);
    }
  }
  const gen = run();
  return Object.assign(gen, { close }) as TaskWatch;
}
