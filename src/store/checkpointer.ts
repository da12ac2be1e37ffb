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
const tick = () => { try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {} };
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on("message", () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

/** Starts the checkpointer for the database at `path`; returns its stop function. */
export function startCheckpointer(path: string, intervalMs = 100): () => void {
  const module = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER, { eval: true, workerData: { module, path, intervalMs } });
  worker.unref();
  worker.on("error", () => {});
  return () => {
    worker.postMessage("stop");
  };
}
