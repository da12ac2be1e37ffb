/**
 * One serving process per database file, guarded by an OS lock the kernel drops when its
 * process dies (kill -9, OOM, power loss), so there is never a stale lock to judge and a
 * restart right after a crash just works, as PID 1 in a container and across PID namespaces
 * (a pid file could not tell a live owner in another namespace from a dead one, and as PID 1
 * it took its own pid for a live owner). The lock is an exclusive fcntl lock that SQLite holds
 * on a small lock database in exclusive locking mode. It is keyed on the database file's
 * identity (device and inode, beside the real file), so a symlinked path or a hard link in
 * the same directory finds the same lock.
 */
import { closeSync, openSync, readFileSync, realpathSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { ClawError } from "../core/errors.js";

/** The lock file of the database at `dbPath` (which must exist). */
export function lockPathOf(dbPath: string): string {
  const real = realpathSync(dbPath);
  const { dev, ino } = statSync(real);
  return join(dirname(real), `.tsclaw-lock-${dev}-${ino}`);
}

function locked(dbPath: string, lockPath: string): ClawError {
  let owner = "";
  try {
    const pid = Number.parseInt(readFileSync(`${lockPath}.pid`, "utf8"), 10);
    if (pid > 0)
      owner = ` by process ${pid}${pid === process.pid ? " (this process: share one createClaw() or use another file)" : ""}`;
  } catch {
    // no owner note (yet): the lock alone decides
  }
  return new ClawError(
    "database_locked",
    `database ${dbPath} is already in use${owner}; one serving process per database file (stop it, or pass another --db)`,
    { lockFile: lockPath },
  );
}

/** Takes the lock for `dbPath` (creating the file when missing); returns its release function. */
export function acquireDbLock(dbPath: string): () => void {
  closeSync(openSync(dbPath, "a")); // the file's identity names the lock
  const lockPath = lockPathOf(dbPath);
  let lock: Database.Database | undefined;
  try {
    lock = new Database(lockPath, { timeout: 0 });
    lock.pragma("locking_mode = EXCLUSIVE");
    lock.pragma("journal_mode = OFF");
    // The first write takes the EXCLUSIVE lock; in exclusive locking mode it is kept until close.
    lock.exec("CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL, started INTEGER NOT NULL)");
    lock.exec("DELETE FROM owner");
    lock.prepare("INSERT INTO owner (pid, started) VALUES (?, ?)").run(process.pid, Date.now());
  } catch (err) {
    lock?.close();
    const code = (err as { code?: string }).code ?? "";
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) throw locked(dbPath, lockPath);
    throw err;
  }
  // A note for the message a second process prints; the lock itself is the fcntl lock.
  try {
    writeFileSync(`${lockPath}.pid`, `${process.pid}\n`);
  } catch {
    // read-only directory: the message just will not name the owner
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      unlinkSync(`${lockPath}.pid`);
    } catch {
      // already gone
    }
    lock.close(); // drops the fcntl lock
  };
}
