/**
 * In-process change notification per task: check_task waits on the change itself (no sleep
 * loop). A listener is woken after every committed change of its task, and once more, with
 * `closing` true, when the service shuts down.
 */

/** Called after a change of the task (or at shutdown with closing = true). */
export type ChangeListener = (closing: boolean) => void;

/** Listeners per task id. */
export class TaskNotifier {
  private readonly listeners = new Map<string, Set<ChangeListener>>();

  /** Registers `fn` for `taskId`; returns its removal. */
  listen(taskId: string, fn: ChangeListener): () => void {
    let set = this.listeners.get(taskId);
    if (!set) this.listeners.set(taskId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.listeners.get(taskId) === set) this.listeners.delete(taskId);
    };
  }

  /** Wakes the listeners of `taskId`. */
  changed(taskId: string): void {
    const set = this.listeners.get(taskId);
    if (!set) return;
    for (const fn of [...set]) fn(false);
  }

  /** Wakes every listener with closing = true (shutdown). */
  closeAll(): void {
    for (const set of [...this.listeners.values()]) for (const fn of [...set]) fn(true);
  }

  /** Number of waiting listeners (for tests and diagnostics). */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
