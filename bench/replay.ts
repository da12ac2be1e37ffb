/**
 * Replay: read N stored events by cursor (`read`, pages of 1 000, payloads parsed) vs a raw
 * `SELECT … WHERE rowid > ?` scan in pages of 1 000 that also parses each payload's JSON. The
 * same on PostgreSQL (a server of the scenario's own) vs raw `pg` pages of
 * `SELECT … WHERE id > $1 ORDER BY id LIMIT 1000` + JSON.parse.
 */

import { join } from "node:path";
import Database from "better-sqlite3";
import type pg from "pg";
import { type Claw, createClaw } from "../src/index.js";
import { now, pool, size, tempDir } from "./measure.js";
import { notInstalled, stopAll } from "./peers/peer-rows.js";
import { samplePayload } from "./raw-db.js";
import { rawPgClient } from "./raw-pg.js";
import { type BenchStore, pgVsSqlite, startPgStore } from "./stores.js";
import { type Row, row } from "./table.js";

const PAGE = 1000;

async function fill(claw: Claw, n: number): Promise<void> {
  await pool(5000, n, (i) => claw.bus.out({ bus: "replay", payload: samplePayload(i) }));
}

function fillRaw(db: Database.Database, n: number): void {
  db.exec("CREATE TABLE raw (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, payload TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO raw (id, ts, payload) VALUES (?, ?, ?)");
  const tx = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) insert.run(i + 1, Date.now(), JSON.stringify(samplePayload(i)));
  });
  for (let i = 0; i < n; i += 10_000) tx(i, Math.min(n, i + 10_000));
}

async function replayTsclaw(claw: Claw, limit = Infinity): Promise<{ ms: number; count: number }> {
  const t0 = now();
  let after = 0;
  let count = 0;
  let sum = 0;
  while (count < limit) {
    const page = await claw.bus.read({ bus: "replay", after, limit: PAGE });
    if (page.events.length === 0) break;
    for (const e of page.events) sum += (e.payload as { i: number }).i;
    count += page.events.length;
    after = page.next;
  }
  if (sum < 0) throw new Error("unreachable");
  return { ms: now() - t0, count };
}

/** Parses one raw page as tsclaw does (each payload's JSON) and sums a field, so the work is kept. */
function consumeRawPage(rows: readonly { id: number; ts: number; payload: string }[]): { sum: number; last: number } {
  const events = rows.map((r) => ({ seq: r.id, ts: r.ts, payload: JSON.parse(r.payload) as { i: number } }));
  let sum = 0;
  for (const e of events) sum += e.payload.i;
  return { sum, last: rows[rows.length - 1]!.id };
}

function replayRaw(db: Database.Database, limit = Infinity): { ms: number; count: number } {
  const select = db.prepare<[number, number], { id: number; ts: number; payload: string }>(
    "SELECT id, ts, payload FROM raw WHERE rowid > ? ORDER BY rowid LIMIT ?",
  );
  const t0 = now();
  let after = 0;
  let count = 0;
  let sum = 0;
  while (count < limit) {
    const rows = select.all(after, PAGE);
    if (rows.length === 0) break;
    const page = consumeRawPage(rows);
    sum += page.sum;
    count += rows.length;
    after = page.last;
  }
  if (sum < 0) throw new Error("unreachable");
  return { ms: now() - t0, count };
}

async function fillRawPg(client: pg.Client, n: number): Promise<void> {
  await client.query("CREATE TABLE raw (id BIGINT PRIMARY KEY, ts BIGINT NOT NULL, payload TEXT NOT NULL)");
  for (let i = 0; i < n; i += 10_000) {
    const ids: number[] = [];
    const texts: string[] = [];
    for (let j = i; j < Math.min(n, i + 10_000); j++) {
      ids.push(j + 1);
      texts.push(JSON.stringify(samplePayload(j)));
    }
    await client.query(
      "INSERT INTO raw (id, ts, payload) SELECT id, $1, p FROM unnest($2::bigint[], $3::text[]) AS u(id, p)",
      [Date.now(), ids, texts],
    );
  }
}

async function replayRawPg(client: pg.Client, limit = Infinity): Promise<{ ms: number; count: number }> {
  const t0 = now();
  let after = 0;
  let count = 0;
  let sum = 0;
  while (count < limit) {
    const { rows } = await client.query<{ id: number; ts: number; payload: string }>(
      "SELECT id, ts, payload FROM raw WHERE id > $1 ORDER BY id LIMIT $2",
      [after, PAGE],
    );
    if (rows.length === 0) break;
    const page = consumeRawPage(rows);
    sum += page.sum;
    count += rows.length;
    after = page.last;
  }
  if (sum < 0) throw new Error("unreachable");
  return { ms: now() - t0, count };
}

/** tsclaw and raw `pg` replay on fresh databases of the scenario's PostgreSQL: events/s of each. */
async function replayOnPg(store: BenchStore, n: number): Promise<{ tsclaw: number; raw: number; cold: number }> {
  const fresh = await store.fresh();
  const rawDb = await store.fresh();
  const claw = createClaw({ db: fresh.db, project: "bench" });
  const raw = await rawPgClient(rawDb.db);
  try {
    await fill(claw, n);
    await fillRawPg(raw, n);
    // A table filled moments ago has no planner statistics yet; autovacuum gathers them within
    // a minute or so on a live database. Until then tsclaw's page query is planned for a few
    // hundred rows (bitmap scan + sort of every later event, per page): that first pass is the
    // warm-up, reported in the note. Then both tables are analyzed, as autovacuum would.
    const cold = await replayTsclaw(claw, n / 10);
    await raw.query("ANALYZE raw");
    const clawDb = await rawPgClient(fresh.db);
    await clawDb.query("ANALYZE events").finally(() => clawDb.end());
    await replayTsclaw(claw, n / 10);
    await replayRawPg(raw, n / 10);
    const ts = [await replayTsclaw(claw), await replayTsclaw(claw)].sort((a, b) => a.ms - b.ms)[0]!;
    const base = [await replayRawPg(raw), await replayRawPg(raw)].sort((a, b) => a.ms - b.ms)[0]!;
    if (ts.count !== n || base.count !== n)
      throw new Error(`replay on PostgreSQL counted ${ts.count} / ${base.count}, expected ${n}`);
    return { tsclaw: (n / ts.ms) * 1000, raw: (n / base.ms) * 1000, cold: (cold.count / cold.ms) * 1000 };
  } finally {
    await raw.end();
    await claw.close();
    await fresh.remove();
    await rawDb.remove();
  }
}

async function replayOnSqlite(n: number): Promise<{ tsclaw: number; raw: number }> {
  const tmp = tempDir();
  const claw = createClaw({ db: join(tmp.dir, "claw.db"), project: "bench" });
  const raw = new Database(join(tmp.dir, "raw.db"));
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  try {
    await fill(claw, n);
    fillRaw(raw, n);
    // Warm both (JIT; the fill left the pages in the cache) on a tenth, then keep the better of two passes each.
    await replayTsclaw(claw, n / 10);
    replayRaw(raw, n / 10);
    const ts = [await replayTsclaw(claw), await replayTsclaw(claw)].sort((a, b) => a.ms - b.ms)[0]!;
    const base = [replayRaw(raw), replayRaw(raw)].sort((a, b) => a.ms - b.ms)[0]!;
    if (ts.count !== n || base.count !== n)
      throw new Error(`replay counted ${ts.count} / ${base.count}, expected ${n}`);
    return { tsclaw: (n / ts.ms) * 1000, raw: (n / base.ms) * 1000 };
  } finally {
    raw.close();
    await claw.close();
    tmp.remove();
  }
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const n = size(1_000_000, 20_000);
  // Filling PostgreSQL through `out` runs at its commit rate: a fifth of SQLite's events keeps the
  // scenario short, and a read's rate does not depend on how many rows follow it.
  const nPg = size(200_000, 5000);
  const scenario = "replay by cursor";
  const lite = await replayOnSqlite(n);
  const rows = [
    row({
      scenario,
      unit: "events/s",
      tsclaw: lite.tsclaw,
      baseline: lite.raw,
      target: { op: ">=", value: 0.9 },
      note: `${n} events, pages of ${PAGE}; raw = SELECT … WHERE rowid > ? + JSON.parse`,
    }),
  ];
  // Started once the SQLite row is measured: a server starting up (or idle, with its
  // background workers) is no part of what that row compares.
  const pg = await startPgStore();
  try {
    if (!pg.peer) rows.push(notInstalled(`${scenario} on PostgreSQL`, "events/s", null, pg.missing));
    else {
      const onPg = await replayOnPg(pg.peer.store, nPg);
      rows.push(
        row({
          scenario: `${scenario} on PostgreSQL`,
          unit: "events/s",
          tsclaw: onPg.tsclaw,
          baseline: onPg.raw,
          target: null,
          note: `${nPg} events, pages of ${PAGE}; raw = pg, SELECT … WHERE id > $1 ORDER BY id LIMIT ${PAGE} + JSON.parse; both tables ANALYZEd after the fill (before it, tsclaw's first ${nPg / 10} events read at ${Math.round(onPg.cold)} events/s); ${pgVsSqlite(onPg.tsclaw, lite.tsclaw, "events/s")}`,
        }),
      );
    }
    return rows;
  } finally {
    await stopAll([pg]);
  }
}
