/**
 * What one statement costs through each way of talking to PostgreSQL from node: `pg`'s
 * pool.query per statement (prepared by name), tsclaw's own PgSql (the same pool, connections
 * held while busy), `pg` with dedicated clients (rows as objects or arrays), and postgres.js
 * (pipelined, prepared). Each runs
 * tsclaw's statement mix of a task's life (INSERT INTO tasks … RETURNING *, UPDATE tasks …
 * RETURNING *, SELECT * FROM tasks, one events batch) on a fresh database, 20 operations at once
 * and one at a time, and prints node CPU µs per statement (process.cpuUsage), the PostgreSQL
 * server's CPU µs per statement (utime + stime of its processes, from /proc) and statements/s,
 * then the node CPU of a round trip that does nothing (`SELECT 1`, one at a time): the floor
 * that no driver changes. Drivers are measured in interleaved rounds (medians printed), as the
 * machine is shared. Not a scenario: it says which driver is cheaper, and by how much.
 * Usage: npx tsx bench/pg-driver.ts [operations] [--rounds=3] [--connections=10] [--only=name,name]
 */
import { join } from "node:path";
import pg from "pg";
import postgres from "postgres";
import { openPg, pgTimeouts } from "../src/store/pg/open-pg.js";
import { APPEND } from "../src/store/pg/pg-event-store.js";
import { numericTypes } from "../src/store/pg/prepared-query.js";
import type { PgSql } from "../src/store/pg-sql.js";
import { numberedPlaceholders } from "../src/store/sql.js";
import { createTestDatabase } from "../test/helpers/pg-server.js";
import { now, pool } from "./measure.js";
import { startPostgres } from "./peers/postgres.js";
import { pgServerCpu } from "./proc-cpu.js";

const args = process.argv.slice(2);
const OPS = Number(args.find((a) => /^\d+$/.test(a)) ?? 2000);
const ONLY = args
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",");
/** Connections each driver opens. Default: 10, tsclaw's default pool size */
const CONNECTIONS = Number(args.find((a) => a.startsWith("--connections="))?.slice(14) ?? 10);
/** Measured runs of each driver (interleaved); each printed number is their median. Default: 3 */
const ROUNDS = Number(args.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 3);

const INSERT =
  numberedPlaceholders(`INSERT INTO tasks (id, kind, title, body, prompt, session_key, session_id, project, status, phase, version, model, provider, bus, created_at, updated_at, timeline, run_node, schedule_id, firing_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`);
const UPDATE = numberedPlaceholders(
  "UPDATE tasks SET status = ?, phase = ?, started_at = ?, latest_update = ?, version = version + 1, updated_at = ? WHERE id = ? AND version = ? RETURNING *",
);
const SELECT = "SELECT * FROM tasks WHERE id = $1";
const STATEMENTS_PER_OP = 4;

/** Runs one statement, returning its rows. */
type Run = (text: string, values: unknown[]) => Promise<unknown[]>;

/** One operation: a task's insert, update, read and one events batch. */
async function op(run: Run, id: string): Promise<void> {
  const t = Date.now();
  const [task] = (await run(INSERT, [
    id,
    "run",
    `task ${id}`,
    null,
    "say hello",
    `s-${id}`,
    null,
    "default",
    "queued",
    "queued",
    "fake",
    "openai",
    `task/${id}`,
    t,
    t,
    "[]",
    null,
    null,
    null,
  ])) as { version: number; seq: number }[];
  if (typeof task?.seq !== "number") throw new Error(`seq came back as ${typeof task?.seq}`);
  await run(UPDATE, ["in_progress", "running", t, "started", t, id, task.version]);
  await run(SELECT, [id]);
  const payload = JSON.stringify({ type: "task.started", taskId: id, at: t });
  await run(APPEND, [[`task/${id}`], [1], [`task/${id}`], [1], [t], [payload.length], [payload], "bench"]);
}

/** The drivers compared: each opens on `url` and gives a statement runner and its close. */
const DRIVERS: Record<string, (url: string) => Promise<{ run: Run; close(): Promise<void> }>> = {
  /** pool.query per statement, prepared by name: what PgSql did before it held connections. */
  "pg pool.query": async (url) => {
    const db = await openPg(url, { maxConnections: CONNECTIONS });
    const run: Run = async (text, values) => (await db.names.query(db.pool, text, values)).rows;
    return { run, close: () => db.close() };
  },
  /** tsclaw's PgSql as openPg makes it: connections held while busy, prepared by name. */
  PgSql: async (url) => {
    const db = await openPg(url, { maxConnections: CONNECTIONS });
    const sql: PgSql = db.sql;
    return { run: (text, values) => sql.all(text, values as never[]), close: () => db.close() };
  },
  /** `pg`, CONNECTIONS dedicated clients handed out from a free list, named statements. */
  "pg clients": (url) => pgClients(url, false),
  /** The same with tsclaw's connection settings (timeouts, keepalive) and statement names. */
  "pg clients, tsclaw settings": (url) => pgClients(url, false, true),
  /** The same with rows as arrays (no per-row object built by pg), objects built here. */
  "pg clients, array rows": (url) => pgClients(url, true),
  /** postgres.js: pipelined on CONNECTIONS connections, prepared statements, int8 as numbers. */
  "postgres.js": (url) => postgresJs(url, CONNECTIONS),
  /** postgres.js on fewer connections: more statements pipelined in one write. */
  "postgres.js, 1/4 the connections": (url) => postgresJs(url, Math.max(1, Math.round(CONNECTIONS / 4))),
};

async function postgresJs(url: string, max: number): Promise<{ run: Run; close(): Promise<void> }> {
  const sql = postgres(url, {
    max,
    onnotice: () => {},
    types: {
      number: { to: 0, from: [20, 1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
    },
  });
  return {
    run: (text, values) => sql.unsafe(text, values as never[], { prepare: true }) as Promise<unknown[]>,
    close: () => sql.end({ timeout: 5 }),
  };
}

async function pgClients(
  url: string,
  arrays: boolean,
  settings = false,
): Promise<{ run: Run; close(): Promise<void> }> {
  const types = numericTypes(pg.types);
  const clients = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const c = new pg.Client({ connectionString: url, types, ...(settings ? pgTimeouts(url) : {}) });
      await c.connect();
      return c;
    }),
  );
  const free = [...clients];
  const waiting: ((c: pg.Client) => void)[] = [];
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let n = names.get(text);
    if (!n) {
      n = `b${names.size}`;
      names.set(text, n);
    }
    return n;
  };
  const run: Run = async (text, values) => {
    const c = free.pop() ?? (await new Promise<pg.Client>((r) => waiting.push(r)));
    try {
      if (!arrays) return (await c.query({ name: nameOf(text), text, values })).rows;
      const r = await c.query({ name: nameOf(text), text, values, rowMode: "array" });
      const keys = r.fields.map((f) => f.name);
      return (r.rows as unknown[][]).map((row) => {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < keys.length; i++) o[keys[i]!] = row[i];
        return o;
      });
    } finally {
      const next = waiting.shift();
      if (next) next(c);
      else free.push(c);
    }
  };
  return { run, close: () => Promise.all(clients.map((c) => c.end())).then(() => {}) };
}

const server = await startPostgres();
// This server's postmaster and its children only, not other servers on the machine.
const serverCpu = pgServerCpu(join(server.dir, "data"));

let sys0 = 0;
const nodeCpu = () => {
  const u = process.cpuUsage();
  sys0 = u.system / 1000;
  return (u.user + u.system) / 1000;
};

/** One measured run of `n` operations, `concurrency` at once: µs per statement and statements/s. */
async function measure(run: Run, p: string, concurrency: number, n: number) {
  const [node0, pg0, t0] = [nodeCpu(), serverCpu(), now()];
  const sysBefore = sys0;
  await pool(concurrency, n, (i) => op(run, `${p}-${i}`));
  const [node1, pg1, t1] = [nodeCpu(), serverCpu(), now()];
  const statements = n * STATEMENTS_PER_OP;
  return {
    node: ((node1 - node0) * 1000) / statements,
    system: ((sys0 - sysBefore) * 1000) / statements,
    postgres: ((pg1 - pg0) * 1000) / statements,
    perSecond: (statements / (t1 - t0)) * 1000,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const opened: { name: string; run: Run; close(): Promise<void> }[] = [];
  for (const [name, open] of Object.entries(DRIVERS)) {
    if (ONLY && !ONLY.some((o) => name.includes(o))) continue;
    const url = await createTestDatabase(server.url);
    if (!["pg pool.query", "PgSql"].includes(name)) await (await openPg(url)).close(); // the schema
    const driver = await open(url);
    opened.push({ name, ...driver });
    await pool(20, 200, (i) => op(driver.run, `${opened.length}-warm-${i}`));
  }
  try {
    // Rounds interleave the drivers, so load from elsewhere on the machine falls on all of them;
    // each line is the median of the rounds.
    for (const concurrency of [20, 1]) {
      const n = concurrency === 1 ? Math.ceil(OPS / 4) : OPS;
      const results = new Map<string, Awaited<ReturnType<typeof measure>>[]>();
      for (let round = 0; round < ROUNDS; round++)
        for (const [d, { name, run }] of opened.entries()) {
          const r = await measure(run, `${d}-c${concurrency}-r${round}`, concurrency, n);
          results.set(name, [...(results.get(name) ?? []), r]);
        }
      for (const [name, rs] of results) {
        const m = (k: keyof (typeof rs)[0]) => median(rs.map((r) => r[k]));
        const [nodeUs, pgUs] = [m("node"), m("postgres")];
        process.stdout.write(
          `${name.padEnd(33)} ${String(concurrency).padStart(2)} at once: node ${nodeUs.toFixed(0).padStart(4)} µs (system ${m("system").toFixed(0).padStart(3)}), postgres ${pgUs.toFixed(0).padStart(4)} µs, total ${(nodeUs + pgUs).toFixed(0).padStart(4)} µs per statement; ${m("perSecond").toFixed(0)} statements/s\n`,
        );
      }
    }
    // The floor under all of them: one round trip that does nothing, one at a time.
    const floor = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++)
      for (const { name, run } of opened) {
        const n = Math.ceil(OPS / 2);
        const node0 = nodeCpu();
        for (let i = 0; i < n; i++) await run("SELECT 1 AS one", []);
        floor.set(name, [...(floor.get(name) ?? []), ((nodeCpu() - node0) * 1000) / n]);
      }
    for (const [name, us] of floor)
      process.stdout.write(
        `${name.padEnd(33)} SELECT 1, one at a time: node ${median(us).toFixed(0).padStart(4)} µs\n`,
      );
  } finally {
    for (const d of opened) await d.close();
  }
} finally {
  await server.stop();
}
