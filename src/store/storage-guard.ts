/**
 * Notices when the database files are deleted or replaced under a running server. SQLite keeps
 * writing to the inodes it opened, so without this every later commit would be acknowledged
 * and then lost on the next start (a new, empty database with a new instance id). The guard
 * remembers each file's device and inode and compares them with what the path names now: before
 * every bus group commit is acknowledged, and every 200 ms for everything else. Once lost it
 * stays lost: writes get `storage_unavailable` and `/health` answers 503 until a restart.
 * A database server (PostgreSQL) has no files here: `/health` asks it instead, with a probe that
 * must answer within HEALTH_PROBE_MS, so a load balancer stops sending traffic to a node whose
 * database is stopped or hung.
 */
import { statSync } from "node:fs";
import { ClawError } from "../core/errors.js";

/** How often the files are checked between commits. */
export const STORAGE_CHECK_MS = 200;

/** How long `/health` waits for the database server's answer before it reports it unavailable. */
export const HEALTH_PROBE_MS = 2000;

// No "-shm": the database runs in exclusive locking mode, which never uses that file (see
// db.ts); one left from an older run, or made by someone else, means nothing.
const SUFFIXES = ["", "-wal"] as const;

/** The database files' identity, checked on demand and on a timer. */
export class StorageGuard {
  private readonly known = new Map<string, string>();
  private lostReason: string | undefined;
  private timer?: NodeJS.Timeout;

  /**
   * @param path The database file (absolute), or ":memory:" for a guard that never fails.
   * @param probe Asks a database server whether it answers (PostgreSQL). Default: none
   */
  constructor(
    private readonly path: string,
    private readonly probe?: () => Promise<unknown>,
  ) {
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

  /**
   * What `/health` reports: undefined while storage works, else `storage_unavailable` (files
   * lost, or the database server not answering within HEALTH_PROBE_MS).
   */
  async health(): Promise<ClawError | undefined> {
    if (this.lostReason !== undefined) return this.error();
    if (!this.probe) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`it did not answer within ${HEALTH_PROBE_MS} ms`), HEALTH_PROBE_MS);
    });
    const answered = this.probe().then(
      () => undefined,
      (err: unknown) => `${(err as Error)?.message ?? err}`,
    );
    const problem = await Promise.race([answered, late]).finally(() => clearTimeout(timer));
    if (problem === undefined) return undefined;
    return new ClawError("storage_unavailable", `the database is unavailable: ${problem}; retry later`, {
      reason: problem,
    });
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
