/**
 * check_task's wait: woken by the task's own change notifications (no sleep loop). Returns on
 * a terminal or actionable status ("settled"), on any newer version ("update"), at the end of
 * the wait, when the caller goes away, or at shutdown. Never changes the task.
 */

import type { TaskNotifier } from "./task-notifier.js";
import { ACTIONABLE, TERMINAL } from "./task-status.js";
import type { TaskRecord, TaskStore } from "./task-store.js";

/** How to wait. */
export interface WaitOptions {
  waitMs: number;
  until: "settled" | "update";
  /** With "update": return once the version is above this. Default: the version at the start */
  afterVersion?: number;
  signal: AbortSignal;
}

/**
 * Waits for `taskId` as asked; returns the last snapshot and how long it waited. `read` is the
 * first read of the task (check_task's counts the poll in the same statement).
 */
export async function waitForTask(
  store: TaskStore,
  notifier: TaskNotifier,
  taskId: string,
  opts: WaitOptions,
  read: () => Promise<TaskRecord> = () => store.get(taskId),
): Promise<{ task: TaskRecord; waitedMs: number }> {
  const started = performance.now();
  // Listening before the read: a change committed while the read is on its way is not missed.
  let announced: TaskRecord | undefined;
  let closing = false;
  let wake = () => {};
  const unlisten = notifier.listen(taskId, (isClosing, current) => {
    if (isClosing || !current) closing = true;
    else if (!announced || current.version > announced.version) announced = current;
    wake();
  });
  let task: TaskRecord;
  try {
    task = await read();
  } catch (err) {
    unlisten();
    throw err;
  }
  const baseline = opts.afterVersion ?? task.version;
  const newest = () => (announced && announced.version > task.version ? announced : task);
  const ready = (t: TaskRecord) =>
    TERMINAL.has(t.status) || ACTIONABLE.has(t.status) || (opts.until === "update" && t.version > baseline);
  if (ready(task) || closing || opts.waitMs <= 0 || opts.signal.aborted) {
    unlisten();
    return { task, waitedMs: 0 };
  }
  // True once a change announced the task ready: the answer is that change's record as written.
  let changed = false;
  await new Promise<void>((resolve) => {
    const finish = () => {
      wake = () => {};
      clearTimeout(timer);
      opts.signal.removeEventListener("abort", finish);
      resolve();
    };
    wake = () => {
      task = newest();
      if (closing) finish();
      else if (ready(task)) {
        changed = task === announced;
        finish();
      }
    };
    const timer = setTimeout(finish, opts.waitMs);
    opts.signal.addEventListener("abort", finish, { once: true });
    wake(); // a change announced while the task was being read
  });
  unlisten();
  // Woken by a change: its record is the task as that commit wrote it, so the answer goes out
  // now (no read back). At the end of the wait, on abort or at shutdown: the newest stored.
  if (changed) return { task, waitedMs: Math.round(performance.now() - started) };
  try {
    task = (await store.find(taskId)) ?? newest();
  } catch {
    // the database closed during shutdown: answer with the last snapshot seen
    task = newest();
  }
  return { task, waitedMs: Math.round(performance.now() - started) };
}
