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

/** Waits for `taskId` as asked; returns the last snapshot and how long it waited. */
export async function waitForTask(
  store: TaskStore,
  notifier: TaskNotifier,
  taskId: string,
  opts: WaitOptions,
): Promise<{ task: TaskRecord; waitedMs: number }> {
  const started = performance.now();
  let task = store.get(taskId);
  const baseline = opts.afterVersion ?? task.version;
  const ready = (t: TaskRecord) =>
    TERMINAL.has(t.status) || ACTIONABLE.has(t.status) || (opts.until === "update" && t.version > baseline);
  if (ready(task) || opts.waitMs <= 0 || opts.signal.aborted) return { task, waitedMs: 0 };
  await new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unlisten();
      opts.signal.removeEventListener("abort", finish);
      resolve();
    };
    const unlisten = notifier.listen(taskId, (closing) => {
      if (closing) return finish();
      const current = store.find(taskId);
      if (!current) return finish();
      task = current;
      if (ready(current)) finish();
    });
    const timer = setTimeout(finish, opts.waitMs);
    opts.signal.addEventListener("abort", finish, { once: true });
  });
  try {
    task = store.find(taskId) ?? task;
  } catch {
    // the database closed during shutdown: answer with the last snapshot seen
  }
  return { task, waitedMs: Math.round(performance.now() - started) };
}
