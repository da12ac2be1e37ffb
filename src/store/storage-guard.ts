/**
 * Notices when the database files are deleted or replaced under a running server. SQLite keeps
 * writing to the inodes it opened, so without this every later commit would be acknowledged
 * and then lost on the next start (a new, empty database with a new instance id). The guard
 * remembers each file's device and inode and compares them with what the path names now: before
 * every bus group commit is acknowledged, and every 200 ms for everything else. Once lost it
 * stays lost: writes get `storage_unavailable` and `/health` answers 503 until a restart.
 */
import { statSync } from "node:fs";
import { ClawError } from "../core/errors.js";

/** How often the files are checked between commits. */
export const STORAGE_CHECK_MS = 200;

// No "-shm": the database runs in exclusive locking mode, which never uses that file (see
// db.ts); one left from an older run, or made by someone else, means nothing.
const SUFFIXES = ["", "-wal"] as const;

/** The database files' identity, checked on demand and on a timer. */
export class StorageGuard {
  private readonly known = new Map<string, string>();
  private lostReason: string | undefined;
  private timer?: NodeJS.Timeout;

  /** @param path The database file (absolute), or ":memory:" for a guard that never fails. */
  constructor(private readonly path: string) {
    if (path === ":memory:") return;
    this.check();
    this.timer = setInterval(() => this.check(), STORAGE_CHECK_MS);
    this.timer.unref();
  }

  /** Why storage was lost, or undefined while it is fine. */
  get lost(): string | undefined {
    return this.lostReason;
  }

  /**
   * Stats the files (a few microseconds) and returns false once any of them is gone or is
   * another file than the one opened. A file seen for the first time (the WAL appears with the
   * first write) is remembered.
   */
  check(): boolean {
    if (this.lostReason !== undefined) return false;
    if (this.path === ":memory:") return true;
    for (const suffix of SUFFIXES) {
      const file = this.path + suffix;
      const was = this.known.get(file);
      let now: string | undefined;
      try {
        const st = statSync(file);
        now = `${st.dev}:${st.ino}`;
      } catch {
        now = undefined;
      }
      if (was === undefined) {
        if (now !== undefined) this.known.set(file, now);
        else if (suffix === "") this.fail(`${file} is gone`);
        continue;
      }
      if (now === undefined) this.fail(`${file} was deleted while in use`);
      else if (now !== was) this.fail(`${file} was replaced by another file while in use`);
      if (this.lostReason !== undefined) return false;
    }
    return this.lostReason === undefined;
  }

  /** Throws `storage_unavailable` once storage was lost (no stat: the timer and commits do those). */
  assertAvailable(): void {
    if (this.lostReason !== undefined) throw this.error();
  }

  /** Stats now and throws `storage_unavailable` if storage was lost: call before acknowledging a write. */
  assertIntact(): void {
    if (!this.check()) throw this.error();
  }

  /** The error writes get once storage was lost. */
  error(): ClawError {
    return new ClawError(
      "storage_unavailable",
      `storage is unavailable: ${this.lostReason}; nothing written since was kept. Restart the server on a database file`,
      { reason: this.lostReason },
    );
  }

  /** Stops the timer. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private fail(reason: string): void {
    this.lostReason ??= reason;
  }
}
