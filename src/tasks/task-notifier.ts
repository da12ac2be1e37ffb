/**
 * In-process change notification per task: check_task waits on the change itself (no sleep
 * loop). A listener is woken after every committed change of its task, with the task as that
 * change wrote it (so a waiter need not read it back), and once more, with `closing` true,
 * when the service shuts down.
 */
import { KeyedListeners } from "../core/keyed-listeners.js";
import { KnownTasks } from "./known-tasks.js";
import type { TaskRecord } from "./task-store.js";

/** Called after a change of the task, with the task as written (or at shutdown with closing = true). */
export type ChangeListener = (closing: boolean, task?: TaskRecord) => void;

/** Listeners per task id. */
export class TaskNotifier {
  private readonly listeners = new KeyedListeners<ChangeListener>();
  /** The newest record announced of recently changed tasks. */
  private readonly announcedRecords = new KnownTasks();

  /** Registers `fn` for `taskId`; returns its removal. */
  listen(taskId: string, fn: ChangeListener): () => void {
    return this.listeners.listen(taskId, fn);
  }

  /** Wakes the listeners of the task with its new state. */
  changed(task: TaskRecord): void {
    this.announcedRecords.remember(task);
    for (const fn of this.listeners.of(task.id)) fn(false, task);
  }

  /**
   * True when a change of `taskId` at `version` or later was announced here already: the
   * tasks-bus event of that change (this node's own, back from the bus) brings nothing new.
   */
  announced(taskId: string, version: number): boolean {
    return (this.announcedRecords.get(taskId)?.version ?? 0) >= version;
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
