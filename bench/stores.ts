/**
 * The stores a scenario runs tsclaw on: SQLite files, and PostgreSQL databases on a server the
 * scenario starts itself (one per scenario, bench/peers/postgres.ts). A scenario body takes a
 * BenchStore, so the same code measures both and the PostgreSQL rows sit next to the SQLite
 * ones with their ratio. Without PostgreSQL's binaries (or under --no-peers) the PostgreSQL
 * rows say "peer not installed".
 */
import { join } from "node:path";
import { type Claw, createClaw, type Task } from "../src/index.js";
import { createTestDatabase, dropTestDatabase } from "../test/helpers/pg-server.js";
import { tempDir } from "./measure.js";
import { type Optional, startOptional } from "./peers/peer-rows.js";
import { type RunningPostgres, startPostgres } from "./peers/postgres.js";

/** A fresh, empty database and its removal. */
export interface FreshDb {
  /** What createClaw({db}) takes: a file path or a postgres:// URL. */
  db: string;
  remove(): Promise<void>;
}

/** Where tsclaw's database lives in a measurement. */
export interface BenchStore {
  kind: "sqlite" | "postgres";
  /** Appended to a row's scenario name: "" for SQLite, " on PostgreSQL". */
  suffix: string;
  /** A fresh database (a new file, or a new database on the server). */
  fresh(): Promise<FreshDb>;
}

/** SQLite files in fresh temporary directories (tsclaw's default store). */
export const SQLITE: BenchStore = {
  kind: "sqlite",
  suffix: "",
  fresh: async () => {
    const tmp = tempDir();
    return { db: join(tmp.dir, "claw.db"), remove: async () => tmp.remove() };
  },
};

/** Fresh databases on a running PostgreSQL (each dropped, connections and all, by remove()). */
export function postgresStore(server: RunningPostgres): BenchStore {
  return {
    kind: "postgres",
    suffix: " on PostgreSQL",
    fresh: async () => {
      const db = await createTestDatabase(server.url);
      return { db, remove: () => dropTestDatabase(db) };
    },
  };
}

/** The scenario's PostgreSQL and the store on it. */
export interface PgBench {
  server: RunningPostgres;
  store: BenchStore;
  stop(): Promise<void>;
}

/** Starts the scenario's PostgreSQL, or says which peer is missing (stop it with stopAll). */
export async function startPgStore(): Promise<Optional<PgBench>> {
  const pg = await startOptional(startPostgres);
  if (!pg.peer) return { missing: pg.missing! };
  const server = pg.peer;
  return { peer: { server, store: postgresStore(server), stop: () => server.stop() } };
}

/** The note half saying how PostgreSQL runs and how it compares with SQLite. */
export function pgVsSqlite(pg: number, sqlite: number, unit: string, lowerIsBetter = false): string {
  const r = pg / sqlite;
  const fmt = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(n >= 10 ? 1 : 2));
  const how = lowerIsBetter ? "time, lower is better" : "higher is better";
  return `PostgreSQL ÷ SQLite ${r.toFixed(2)} (tsclaw on SQLite ${fmt(sqlite)} ${unit}; ${how}); PostgreSQL defaults (synchronous_commit on), loopback TCP`;
}

/** check_task on `taskId` until it ends, each call waiting up to `waitMs`: the task as it ended. */
export async function checkUntilEnded(claw: Claw, taskId: string, waitMs = 60_000): Promise<Task> {
  let c = await claw.task.check({ taskId, waitMs });
  while (!c.isTerminal) c = await claw.task.check({ taskId, waitMs });
  return c.task;
}

/** checkUntilEnded, for a task that must complete: throws with how it ended otherwise. */
export async function checkUntilCompleted(claw: Claw, taskId: string): Promise<Task> {
  const ended = await checkUntilEnded(claw, taskId);
  if (ended.status !== "completed") throw new Error(`task ended ${ended.status}: ${JSON.stringify(ended.error)}`);
  return ended;
}

/** A claw on a fresh database of `store` whose agent talks to the bench's fake model at `fakeUrl`. */
export async function modelClaw(
  store: BenchStore,
  fakeUrl: string,
): Promise<{ claw: Claw; db: string; close(): Promise<void> }> {
  const fresh = await store.fresh();
  const claw = createClaw({
    db: fresh.db,
    project: "bench",
    baseURL: fakeUrl,
    env: { ...process.env, OPENROUTER_API_KEY: "bench" },
  });
  await claw.ready();
  return {
    claw,
    db: fresh.db,
    close: async () => {
      await claw.close();
      await fresh.remove();
    },
  };
}
