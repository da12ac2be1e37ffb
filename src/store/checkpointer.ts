/**
 * WAL checkpoints off the commit path: PASSIVE, from a timer on the server's own connection, so
 * no commit a caller waits on pays for copying the WAL into the database and its fsync (with
 * SQLite's automatic checkpoint, one commit in every ~1000 pages pays ~10 ms). It runs on the
 * one connection there is: the database is opened in exclusive locking mode (see db.ts), so no
 * second connection (a worker thread's) may open it.
 *
 * When: about every TARGET_FRAMES pages written, as SQLite's own default would, and at once
 * when the server has gone quiet. Each checkpoint stalls the event loop for a fixed ~3 ms
 * (its fsync) plus ~5 µs a page, so checkpointing every tick under a trickle of small commits
 * (a task's status changes: ~4 500 pages/s in the check_task bench) paid the fixed part ten
 * times a second and delayed one wake-up in twenty.
 */
import type Database from "better-sqlite3";

/** One row of `PRAGMA wal_checkpoint`: WAL frames in all, and copied into the database. */
interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** The WAL pages a checkpoint aims to copy at a time (SQLite's default autocheckpoint). */
const TARGET_FRAMES = 1000;
/** Never longer between checkpoints while writes go on: the WAL stays well under the backstop. */
const MAX_INTERVAL_MS = 1000;

/** Runs `checkpoint` once the connection is free of its owner's transactions (the default: at once). */
export type CheckpointGate = (checkpoint: () => void) => unknown;

/** A running checkpointer. */
export interface Checkpointer {
  stop(): void;
  /** Routes every later checkpoint through `gate`. */
  gate(gate: CheckpointGate): void;
}

/**
 * One PASSIVE checkpoint of `db` (no transaction of its connection may be open): the WAL's
 * frames, and whether all of them were copied and the WAL started over. Then the next write
 * starts the WAL over, and SQLite syncs the new WAL header as it does (1–4 ms): a write here
 * that changes nothing (the header page with the schema version it has) takes that sync off
 * the next commit someone waits on.
 */
export function checkpointNow(db: Database.Database): { frames: number; restarted: boolean } {
  const [r] = db.pragma("wal_checkpoint(PASSIVE)") as CheckpointResult[];
  const restarted = r !== undefined && r.log > 0 && r.checkpointed === r.log;
  if (restarted) db.pragma(`user_version = ${Number(db.pragma("user_version", { simple: true }))}`);
  return { frames: r?.log ?? 0, restarted };
}

/** Starts checkpointing `db`, looking every `tickMs`. */
export function startCheckpointer(db: Database.Database, tickMs = 100): Checkpointer {
  let stopped = false;
  let gate: CheckpointGate = (checkpoint) => checkpoint();
  let waiting = false;
  const changes = db.prepare("SELECT total_changes()").pluck();
  // Rows changed on the connection when the WAL was last started over here (-1: not yet),
  // and at the last tick.
  let changesAtRestart = -1;
  let changesAtTick = -1;
  let lastAt = Date.now();
  let intervalMs = tickMs;
  const checkpoint = () => {
    // Never inside someone's open transaction (a checkpoint there would see its writes half done).
    if (stopped || !db.open || db.inTransaction) return;
    try {
      const now = Number(changes.get());
      const quiet = now === changesAtTick;
      changesAtTick = now;
      // Nothing written since the restart below but its own write: nothing worth copying (and
      // copying it would start the WAL over again, every tick, on an idle server).
      if (now === changesAtRestart) return;
      const at = Date.now();
      if (!quiet && at - lastAt < intervalMs) return;
      const { frames, restarted } = checkpointNow(db);
      // The WAL was started over at the last checkpoint, so its frames are what was written
      // since: the next interval is the time the same rate takes to write TARGET_FRAMES. After a
      // quiet spell the rate is unknown, and the next burst is looked at after one tick.
      intervalMs = quiet
        ? tickMs
        : Math.min(MAX_INTERVAL_MS, Math.max(tickMs, ((at - lastAt) * TARGET_FRAMES) / Math.max(1, frames)));
      lastAt = at;
      if (restarted) changesAtRestart = now;
    } catch {
      // busy or the files are gone: the next tick retries, and the storage guard reports loss
    }
  };
  // After the I/O already waiting in this turn of the event loop (immediates run after the poll
  // phase): a request that has arrived, or a response written to a caller in this process, is
  // handled before the loop stalls for the checkpoint's syncs.
  // Through the gate: a write group keeps a transaction open for most of each turn under load,
  // and a checkpoint that only skipped it never ran at all (the WAL grew to the backstop, whose
  // checkpoint a commit pays for). The gate runs it in the gap after the group has committed
  // and its writers have been answered, before the next work starts; while one waits there,
  // later ticks add no other.
  const tick = () => {
    if (waiting) return;
    waiting = true;
    const done = () => {
      waiting = false;
    };
    Promise.resolve(gate(checkpoint)).then(done, done);
  };
  const timer = setInterval(() => setImmediate(tick), tickMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    gate(next) {
      gate = next;
    },
  };
}
