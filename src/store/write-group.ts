/**
 * Group commit for SQLite writes made outside an explicit transaction: the first one opens a
 * transaction, the others of the same turn of the event loop join it, and one COMMIT (on the
 * next turn) makes them all durable. Each write's promise settles only after that COMMIT, so
 * nothing is acknowledged before it is stored; a commit costs the same for one write as for
 * fifty, which is the whole gain (a task's life is a dozen small writes, and many tasks run at
 * once).
 */
import type { Db } from "./db.js";

/** One open group: its transaction, and who waits for its commit. */
export class WriteGroup {
  /** Settles when the group commits (rejects when it is rolled back). */
  readonly done: Promise<void>;
  /** True once the commit is due but a transaction body still holds the connection. */
  due = false;
  private readonly readers: Array<() => void> = [];
  private resolve!: () => void;
  private reject!: (err: unknown) => void;

  constructor(private readonly db: Db) {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.done.catch(() => {}); // members see the failure through their own await
    db.exec("BEGIN IMMEDIATE");
  }

  /**
   * Resolves (never rejects) once the group has ended, before any member learns of it: a read
   * waiting for the commit runs before a member's caller can open the next group, so reads
   * are never starved by a steady stream of writes.
   */
  ended(): Promise<void> {
    return new Promise((resolve) => this.readers.push(resolve));
  }

  /** Commits; a failed COMMIT rolls back and fails every member. */
  commit(): void {
    try {
      this.db.exec("COMMIT");
    } catch (err) {
      this.fail(err);
      return;
    }
    this.wakeReaders();
    this.resolve();
  }

  /** Rolls back what is still open and fails every member with `err`. */
  fail(err: unknown): void {
    try {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
    } catch {
      // the connection already ended the transaction (or closed): nothing is left to undo
    }
    this.wakeReaders();
    this.reject(err);
  }

  private wakeReaders(): void {
    for (const wake of this.readers.splice(0)) wake();
  }
}
