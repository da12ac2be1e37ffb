/**
 * In-process change notification per task: check_task waits on the change itself (no sleep
 * loop). A listener is woken after every committed change of its task, with the task as that
 * change wrote it (so a waiter need not read it back), and once more, with `closing` true,
 * when the service shuts down.
 */
import { KeyedListeners } from "../keyed-listeners.js";
import type { TaskRecord } from "./task-store.js";

/** Called after a change of the task, with the task as written (or at shutdown with closing = true). */
export type ChangeListener = (closing: boolean, task?: TaskRecord) => void;

/** Tasks whose newest announced version is kept (enough for every task running at once). */
const VERSIONS_LIMIT = 1000;

/** Listeners per task id. */
export class TaskNotifier {
  private readonly listeners = new KeyedListeners<ChangeListener>();
  /** The newest version announced of recently changed tasks, oldest first (a Map keeps insertion order). */
  private readonly versions = new Map<string, number>();

  /** Registers `fn` for `taskId`; returns its removal. */
  listen(taskId: string, fn: ChangeListener): () => void {
    return this.listeners.listen(taskId, fn);
  }

  /** Wakes the listeners of the task with its new state. */
  changed(task: TaskRecord): void {
    const known = this.versions.get(task.id);
    if (known === undefined || task.version > known) {
      this.versions.delete(task.id);
      this.versions.set(task.id, task.version);
      if (this.versions.size > VERSIONS_LIMIT) this.versions.delete(this.versions.keys().next().value!);
    }
    for (const fn of this.listeners.of(task.id)) fn(false, task);
  }

  /**
   * True when a change of `taskId` at `version` or later was announced here already: the
   * tasks-bus event of that change (this node's own, back from the bus) brings nothing new.
   */
  announced(taskId: string, version: number): boolean {
    return (this.versions.get(taskId) ?? 0) >= version;
  }

  /** True while someone waits on `taskId`. */
  waiting(taskId: string): boolean {
    return this.listeners.count(taskId) > 0;
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
