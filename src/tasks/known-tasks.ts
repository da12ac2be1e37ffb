/**
 * The newest record of each recently changed task, for the most recent KNOWN_LIMIT tasks: the
 * store decides changes from it without a read, and the notifier tells from it which changes it
 * has announced already.
 */
import type { TaskRecord } from "./task-record.js";

/** Tasks kept: enough for every task running at once. */
const KNOWN_LIMIT = 1000;

/** The last record of recently changed tasks, oldest first (a Map keeps insertion order). */
export class KnownTasks {
  private readonly records = new Map<string, TaskRecord>();

  get(id: string): TaskRecord | undefined {
    return this.records.get(id);
  }

  /** Remembers `t` unless a newer version is known already. */
  remember(t: TaskRecord): void {
    const known = this.records.get(t.id);
    if (known && known.version > t.version) return;
    this.records.delete(t.id);
    this.records.set(t.id, t);
    if (this.records.size > KNOWN_LIMIT) this.records.delete(this.records.keys().next().value!);
  }

  forget(id: string): void {
    this.records.delete(id);
  }
}
