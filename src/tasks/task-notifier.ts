/**
 * In-process change notification per task: check_task waits on the change itself (no sleep
 * loop). A listener is woken after every committed change of its task, and once more, with
 * `closing` true, when the service shuts down.
 */
import { KeyedListeners } from "../keyed-listeners.js";

/** Called after a change of the task (or at shutdown with closing = true). */
export type ChangeListener = (closing: boolean) => void;

/** Listeners per task id. */
export class TaskNotifier {
  private readonly listeners = new KeyedListeners<ChangeListener>();

  /** Registers `fn` for `taskId`; returns its removal. */
  listen(taskId: string, fn: ChangeListener): () => void {
    return this.listeners.listen(taskId, fn);
  }

  /** Wakes the listeners of `taskId`. */
  changed(taskId: string): void {
    for (const fn of this.listeners.of(taskId)) fn(false);
  }

  /** Wakes every listener with closing = true (shutdown). */
  closeAll(): void {
    for (const fn of this.listeners.all()) fn(true);
  }

  /** Number of waiting listeners (for tests and diagnostics). */
  get size(): number {
    return this.listeners.count();
  }
}
