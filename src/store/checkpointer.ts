/**
 * WAL checkpoints off the commit path: PASSIVE on a timer on the server's own connection, so no
 * commit a caller waits on pays for copying the WAL into the database and its fsync (~10 ms
 * every ~1000 pages with SQLite's automatic checkpoint), and each checkpoint copies only what
 * the last interval wrote. It runs on the one connection there is: the database is opened in
 * exclusive locking mode (see db.ts), so no second connection (a worker thread's, as before)
 * may open it.
 */
import type Database from "better-sqlite3";

/** One row of `PRAGMA wal_checkpoint`: WAL frames in all, and copied into the database. */
interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** Starts checkpointing `db` every `intervalMs`; returns its stop function. */
export function startCheckpointer(db: Database.Database, intervalMs = 100): () => void {
  let stopped = false;
  const changes = db.prepare("SELECT total_changes()").pluck();
  // Rows changed on the connection when the WAL was last started over here (-1: not yet).
  let changesAtRestart = -1;
  const checkpoint = () => {
    // Never inside someone's open transaction (a checkpoint there would see its writes half done).
    if (stopped || !db.open || db.inTransaction) return;
    try {
      // Nothing written since the restart below but its own write: nothing worth copying (and
      // copying it would start the WAL over again, every tick, on an idle server).
      const now = Number(changes.get());
      if (now === changesAtRestart) return;
      const [r] = db.pragma("wal_checkpoint(PASSIVE)") as CheckpointResult[];
      // All of the WAL copied: the next write starts it over, and SQLite syncs the new WAL
      // header as it does (1–4 ms). A write here that changes nothing (the header page with
      // the schema version it has) takes that sync off the next commit someone waits on.
      if (r && r.log > 0 && r.checkpointed === r.log) {
        db.pragma(`user_version = ${Number(db.pragma("user_version", { simple: true }))}`);
        changesAtRestart = now;
      }
    } catch {
      // busy or the files are gone: the next tick retries, and the storage guard reports loss
    }
  };
  // After the I/O already waiting in this turn of the event loop (immediates run after the poll
  // phase): a request that has arrived, or a response written to a caller in this process, is
  // handled before the loop stalls for the checkpoint's syncs.
  const timer = setInterval(() => setImmediate(checkpoint), intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
