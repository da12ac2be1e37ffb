/**
 * One serving process per database file. A lock file next to the database records the owner's
 * pid; a live owner makes a second open fail fast with a message naming it, a dead owner's lock
 * (kill -9, power loss) is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { ClawError } from "../errors.js";

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the lock for `dbPath`; returns its release function. */
export function acquireDbLock(dbPath: string): () => void {
  const lockPath = `${dbPath}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(lockPath, "utf8").trim() === String(process.pid)) unlinkSync(lockPath);
        } catch {
          // already gone: nothing to release
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
      if (Number.isInteger(owner) && owner > 0 && pidAlive(owner) && owner !== process.pid) {
        throw new ClawError(
          "database_locked",
          `database ${dbPath} is already in use by process ${owner}; one serving process per database file (stop it, or pass another --db)`,
          { lockFile: lockPath, pid: owner },
        );
      }
      if (owner === process.pid) {
        throw new ClawError(
          "database_locked",
          `database ${dbPath} is already open in this process; share one createClaw() or use another file`,
          { lockFile: lockPath },
        );
      }
      try {
        unlinkSync(lockPath); // stale: its owner is gone
      } catch {
        // another process removed it first; retry
      }
    }
  }
  throw new ClawError("database_locked", `could not take the lock ${lockPath}; another process keeps replacing it`);
}
