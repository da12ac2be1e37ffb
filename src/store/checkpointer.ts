/**
 * WAL checkpoints off the commit path: PASSIVE on a timer on the server's own connection, so no
 * commit a caller waits on pays for copying the WAL into the database and its fsync (~10 ms
 * every ~1000 pages with SQLite's automatic checkpoint), and each checkpoint copies only what
 * the last interval wrote. It runs on the one connection there is: the database is opened in
 * exclusive locking mode (see db.ts), so no second connection (a worker thread's, as before)
 * may open it.
 */
import type Database from "better-sqlite3";

/** Starts checkpointing `db` every `intervalMs`; returns its stop function. */
export function startCheckpointer(db: Database.Database, intervalMs = 100): () => void {
  const timer = setInterval(() => {
    // Never inside someone's open transaction (a checkpoint there would see its writes half done).
    if (!db.open || db.inTransaction) return;
    try {
      db.pragma("wal_checkpoint(PASSIVE)");
    } catch {
      // busy or the files are gone: the next tick retries, and the storage guard reports loss
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
