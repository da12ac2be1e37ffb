/**
 * Where the CPU of a run task goes: runs N run tasks over 20 sessions on a fresh database (as the
 * peer-tasks row does), then N bare model calls, then N graphile-worker jobs on the same
 * PostgreSQL sending the request bodies tsclaw's run sent (the same model call), and prints each side's CPU milliseconds per job in this node process, in the
 * PostgreSQL server's processes (this server's only: not other servers on the machine) and in
 * the fake model's process. Not a scenario: it says what a job costs, and where. --sqlite runs
 * tsclaw on a SQLite file instead.
 * With --statements, PostgreSQL runs pg_stat_statements and the tsclaw run's statements are
 * printed by server time (execution and planning) per job.
 * Usage: npx tsx bench/job-cpu.ts [jobs] [--sqlite] [--statements] [--tsclaw-only]
 */
import { join } from "node:path";
import { Logger, makeWorkerUtils, run as runWorker } from "graphile-worker";
import OpenAI from "openai";
import pg from "pg";
import { childMessages, now, pool, spawnBenchScript } from "./measure.js";
import { bareModelCall, bodyRecorder, recordedCall } from "./model-call.js";
import { startPostgres } from "./peers/postgres.js";
import { pgServerCpu, processCpuMs } from "./proc-cpu.js";
import { checkUntilEnded, modelClaw, postgresStore, SQLITE } from "./stores.js";

const args = process.argv.slice(2);
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 400);
const STATEMENTS = args.includes("--statements");
const TSCLAW_ONLY = args.includes("--tsclaw-only");
const ON_SQLITE = args.includes("--sqlite");
const CONCURRENCY = 20;
const server = await startPostgres(
  STATEMENTS ? ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track_planning=on"] : [],
);

/**
 * pg_stat_statements' rows, by server time, and each table's rows written, divided by the jobs
 * run; `db` is the tsclaw run's database (table counts are per database).
 */
async function printStatements(db: string, reset: boolean): Promise<void> {
  const c = new pg.Client({ connectionString: db });
  await c.connect();
  try {
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    if (reset) {
      await c.query("SELECT pg_stat_statements_reset(), pg_stat_reset()");
      return;
    }
    const tup = await c.query(
      "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd + n_tup_del > 0 ORDER BY relname",
    );
    for (const r of tup.rows)
      process.stdout.write(
        `  ${r.relname}: ins ${(r.n_tup_ins / N).toFixed(2)} upd ${(r.n_tup_upd / N).toFixed(2)} hot ${(r.n_tup_hot_upd / N).toFixed(2)} del ${(r.n_tup_del / N).toFixed(2)}\n`,
      );
    const { rows } = await c.query(
      `SELECT calls, total_exec_time + total_plan_time AS ms, total_plan_time AS plan_ms, query
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY 2 DESC LIMIT 25`,
    );
    const all = await c.query(
      "SELECT SUM(calls) AS calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'",
    );
    const dl = await c.query("SELECT COALESCE(SUM(deadlocks), 0) AS n FROM pg_stat_database");
    process.stdout.write(
      `statements per job: ${(Number(all.rows[0].calls) / N).toFixed(2)}; deadlocks: ${dl.rows[0].n}\n`,
    );
    let sum = 0;
    for (const r of rows) sum += Number(r.ms);
    process.stdout.write(`server time of the top 25 statements: ${(sum / N).toFixed(3)} ms per job\n`);
    for (const r of rows)
      process.stdout.write(
        `  ${(Number(r.ms) / N).toFixed(3)} ms (plan ${(Number(r.plan_ms) / N).toFixed(3)}) ${(Number(r.calls) / N).toFixed(2)}× ${String(r.query).replace(/\s+/g, " ").slice(0, 110)}\n`,
      );
  } finally {
    await c.end();
  }
}
const fake = spawnBenchScript("fake-model.ts", [], {}, [], "pipe");
const fakeMessages = childMessages(fake);
const { url: fakeUrl } = (await fakeMessages.next((m) => typeof m.url === "string")) as { url: string };
/** The request bodies of tsclaw's measured run: graphile-worker's jobs send the same (as the peer-tasks row does). */
let bodies: OpenAI.Responses.ResponseCreateParams[] = [];
// This server's processes only: other PostgreSQL servers on the machine (tests running beside
// the bench) are not counted.
const pgCpu = pgServerCpu(join(server.dir, "data"));
const fakeCpu = () => processCpuMs(fake.pid!);
const self = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function measured(label: string, fn: () => Promise<void>) {
  const system0 = process.cpuUsage().system;
  const before = [self(), pgCpu(), fakeCpu()];
  const t0 = now();
  await fn();
  const wall = now() - t0;
  const after = [self(), pgCpu(), fakeCpu()];
  const per = after.map((a, i) => (a - before[i]!) / N);
  const system = (process.cpuUsage().system - system0) / 1000 / N;
  process.stdout.write(
    `${label}: ${((N / wall) * 1000).toFixed(1)} jobs/s; CPU ms per job: node ${per[0]!.toFixed(2)} (system ${system.toFixed(2)}), postgres ${per[1]!.toFixed(2)}, fake model ${per[2]!.toFixed(2)}, total ${per.reduce((a, b) => a + b, 0).toFixed(2)}\n`,
  );
}
try {
  const { claw, close, db } = await modelClaw(ON_SQLITE ? SQLITE : postgresStore(server), fakeUrl);
  const jobs = async (n: number) =>
    pool(CONCURRENCY, CONCURRENCY, async (s) => {
      for (let i = s; i < n; i += CONCURRENCY) {
        const t = await claw.task.run({ prompt: `job ${i}`, sessionKey: `jobs-${s}` });
        await checkUntilEnded(claw, t.taskId);
      }
    });
  await jobs(CONCURRENCY * 2);
  // On SQLite the server holds no tsclaw database: its own counts are all there is to show.
  const statsDb = ON_SQLITE ? server.url : db;
  if (STATEMENTS) await printStatements(statsDb, true);
  const recorder = bodyRecorder(fake, fakeMessages);
  await recorder.start();
  await measured("tsclaw", () => jobs(N).then(() => {}));
  bodies = await recorder.take();
  if (STATEMENTS) {
    // Closed first: a backend sends its table counts when it ends (or after seconds idle).
    await claw.close();
    await printStatements(statsDb, false);
  }
  await close();
  if (!TSCLAW_ONLY) {
    await bareCalls();
    await graphileJobs();
  }
} finally {
  fake.kill("SIGTERM");
  await server.stop();
}

async function bareCalls(): Promise<void> {
  const client = new OpenAI({ baseURL: fakeUrl, apiKey: "bench" });
  const calls = (n: number) => pool(CONCURRENCY, n, (i) => bareModelCall(client, `job ${i}`));
  await calls(CONCURRENCY * 2);
  await measured("bare model calls", () => calls(N));
}

async function graphileJobs(): Promise<void> {
  const client = new OpenAI({ baseURL: fakeUrl, apiKey: "bench" });
  const silent = new Logger(() => () => {});
  const utils = await makeWorkerUtils({ connectionString: server.url, logger: silent });
  await utils.migrate();
  let done = 0;
  let onDone = () => {};
  const runner = await runWorker({
    connectionString: server.url,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    logger: silent,
    taskList: {
      job: (payload) => recordedCall(client, bodies, (payload as { i: number }).i),
    },
  });
  runner.events.on("job:success", () => {
    done++;
    onDone();
  });
  const gjobs = async (n: number) => {
    const target = done + n;
    const finished = new Promise<void>((r) => (onDone = () => done >= target && r()));
    await pool(CONCURRENCY, n, (i) => utils.addJob("job", { i }));
    await finished;
  };
  await gjobs(CONCURRENCY * 2);
  await measured("graphile", () => gjobs(N));
  await runner.stop();
  await utils.release();
}
