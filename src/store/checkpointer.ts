/**
 * Moves WAL checkpoints off the event loop: a worker thread with its own connection checkpoints
 * (PASSIVE) on a timer, so no commit that a caller waits on pays for copying the WAL into the
 * database and its fsync (~10 ms every ~1000 pages with SQLite's automatic checkpoint).
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 100");
const state = new Int32Array(workerData.state); // 0 idle, 1 checkpointing, 2 stopped
const tick = () => {
  if (Atomics.compareExchange(state, 0, 0, 1) !== 0) return;
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
  Atomics.compareExchange(state, 0, 1, 0);
  Atomics.notify(state, 0);
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on("message", () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

/** Starts the checkpointer for the database at `path`; returns its stop function. */
export function startCheckpointer(path: string, intervalMs = 100): () => void {
  const module = createRequire(import.meta.url).resolve("better-sqlite3");
  // stop() waits (at most 2 s) for a checkpoint in progress and forbids new ones before it
  // returns: a checkpoint that fails (busy while the main connection closes) as the process
  // exits would throw in a terminating isolate, and better-sqlite3 then aborts node.
  const state = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER, { eval: true, workerData: { module, path, intervalMs, state: state.buffer } });
  worker.unref();
  worker.on("error", () => {});
  return () => {
    const until = Date.now() + 2000;
    while (Atomics.compareExchange(state, 0, 0, 2) === 1 && Date.now() < until) Atomics.wait(state, 0, 1, 100);
    worker.postMessage("stop");
  };
}
