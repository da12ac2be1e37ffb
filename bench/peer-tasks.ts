/**
 * Task queues against graphile-worker on a PostgreSQL the bench starts itself. Both sides do the
 * same work per job: one streaming call to the fake Responses model (its own process).
 *   - enqueue rate: task_create vs addJob, 20 callers at once;
 *   - enqueue → start latency, one job at a time on an idle queue: run_task until the task is
 *     in_progress (seen by an in-process check_task until "update") vs addJob until the
 *     graphile-worker task function is called;
 *   - jobs/s: N run_task tasks over 20 sessions, each polled with check_task to the end, vs N
 *     graphile jobs with concurrency 20, counted on job:success.
 * tsclaw on PostgreSQL does not exist yet: its rows say "not built yet".
 */
import { join } from "node:path";
import { Logger, makeWorkerUtils, type Runner, run as runWorker, type WorkerUtils } from "graphile-worker";
import OpenAI from "openai";
import { type Claw, createClaw } from "../src/index.js";
import { childMessages, now, percentile, pool, size, spawnBenchScript, tempDir } from "./measure.js";
import { notInstalled, startOptional, stopAll } from "./peers/peer-rows.js";
import { startPostgres } from "./peers/postgres.js";
import { type Row, row, unavailable } from "./table.js";

const CONCURRENCY = 20;
const silent = new Logger(() => () => {});

async function modelCall(client: OpenAI, i: number): Promise<void> {
  const stream = await client.responses.create({
    model: "fake",
    input: [{ role: "user", content: `job ${i}` }],
    stream: true,
  });
  for await (const ev of stream) if (ev.type === "response.completed") break;
}

async function tsclawEnqueue(claw: Claw, n: number): Promise<number> {
  const t0 = now();
  await pool(CONCURRENCY, n, (i) => claw.task.create({ title: `job ${i}` }));
  return now() - t0;
}

async function tsclawStartLatency(claw: Claw, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const t = await claw.task.run({ prompt: `job ${i}`, sessionKey: `lat-${i}` });
    let started = t.status === "todo" ? 0 : now();
    while (!started) {
      const c = await claw.task.check({ taskId: t.taskId, until: "update", afterVersion: t.version, waitMs: 30_000 });
      if (c.task.status !== "todo") started = now();
    }
    out.push(started - t0);
    let c = await claw.task.check({ taskId: t.taskId, waitMs: 30_000 });
    while (!c.isTerminal) c = await claw.task.check({ taskId: t.taskId, waitMs: 30_000 });
  }
  return out;
}

async function tsclawJobs(claw: Claw, n: number): Promise<number> {
  const t0 = now();
  await pool(CONCURRENCY, CONCURRENCY, async (s) => {
    for (let i = s; i < n; i += CONCURRENCY) {
      const t = await claw.task.run({ prompt: `job ${i}`, sessionKey: `jobs-${s}` });
      let c = await claw.task.check({ taskId: t.taskId, waitMs: 60_000 });
      while (!c.isTerminal) c = await claw.task.check({ taskId: t.taskId, waitMs: 60_000 });
      if (c.task.status !== "completed") throw new Error(`task ended ${c.task.status}`);
    }
  });
  return now() - t0;
}

/** graphile-worker with one task "job" that makes the model call and reports when it started. */
async function graphile(url: string, fakeUrl: string) {
  const client = new OpenAI({ baseURL: fakeUrl, apiKey: "bench" });
  const utils: WorkerUtils = await makeWorkerUtils({ connectionString: url, logger: silent });
  await utils.migrate();
  let onStart: (() => void) | undefined;
  let done = 0;
  let onDone: (() => void) | undefined;
  const runner: Runner = await runWorker({
    connectionString: url,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    logger: silent,
    taskList: {
      job: async (payload) => {
        onStart?.();
        await modelCall(client, (payload as { i: number }).i);
      },
    },
  });
  runner.events.on("job:success", () => {
    done++;
    onDone?.();
  });
  const untilDone = (count: number) =>
    new Promise<void>((resolve) => {
      onDone = () => done >= count && resolve();
      onDone();
    });
  return {
    // Jobs of a task no worker knows stay queued, as task_create's tasks do (never executed).
    enqueue: async (n: number) => {
      const t0 = now();
      await pool(CONCURRENCY, n, (i) => utils.addJob("queued", { i }));
      return now() - t0;
    },
    startLatency: async (n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = new Promise<number>((resolve) => (onStart = () => resolve(now())));
        const before = done;
        const t0 = now();
        await utils.addJob("job", { i });
        out.push((await started) - t0);
        onStart = undefined;
        await untilDone(before + 1);
      }
      return out;
    },
    jobs: async (n: number) => {
      const before = done;
      const t0 = now();
      await pool(CONCURRENCY, n, (i) => utils.addJob("job", { i }));
      await untilDone(before + n);
      return now() - t0;
    },
    close: async () => {
      await runner.stop();
      await utils.release();
    },
  };
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const nEnqueue = size(2000, 100);
  const nLatency = size(200, 20);
  const nJobs = size(400, 40);
  const tmp = tempDir();
  const fakeChild = spawnBenchScript("fake-model.ts");
  const { url: fakeUrl } = (await childMessages(fakeChild).next((m) => typeof m.url === "string")) as { url: string };
  const claw = createClaw({
    db: join(tmp.dir, "claw.db"),
    project: "bench",
    baseURL: fakeUrl,
    env: { ...process.env, OPENROUTER_API_KEY: "bench" },
  });
  const pg = await startOptional(startPostgres);
  try {
    // Warm-up, then measure; tsclaw first, then graphile-worker.
    await tsclawEnqueue(claw, Math.min(200, nEnqueue));
    await tsclawJobs(claw, CONCURRENCY * 2);
    const tsEnq = await tsclawEnqueue(claw, nEnqueue);
    const tsLat = await tsclawStartLatency(claw, nLatency);
    const tsJobs = await tsclawJobs(claw, nJobs);
    let gw: { enq: number; lat: number[]; jobs: number } | null = null;
    if (pg.peer) {
      const g = await graphile(pg.peer.url, fakeUrl);
      try {
        await g.jobs(CONCURRENCY * 2); // warm-up
        gw = { enq: await g.enqueue(nEnqueue), lat: await g.startLatency(nLatency), jobs: await g.jobs(nJobs) };
      } finally {
        await g.close();
      }
    }
    const rate = (count: number, ms: number) => (count / ms) * 1000;
    const p = percentile;
    const specs = [
      ["tasks: task_create vs graphile addJob, 20 callers", "jobs/s"],
      ["tasks: enqueue → start p50, run_task vs graphile", "ms"],
      ["tasks: enqueue → start p99, run_task vs graphile", "ms"],
      ["tasks: run_task jobs/s vs graphile-worker (same model call)", "jobs/s"],
    ] as const;
    const tsFigures = [rate(nEnqueue, tsEnq), p(tsLat, 50), p(tsLat, 99), rate(nJobs, tsJobs)];
    const gwFigures = gw ? [rate(nEnqueue, gw.enq), p(gw.lat, 50), p(gw.lat, 99), rate(nJobs, gw.jobs)] : null;
    const notes = [
      `${nEnqueue} jobs; tsclaw SQLite (WAL, synchronous=NORMAL) vs graphile-worker 0.17 on PostgreSQL 15 defaults (synchronous_commit on)`,
      `${nLatency} jobs one at a time on an idle queue; tsclaw start = in_progress seen by check_task; graphile start = task function called (LISTEN/NOTIFY)`,
      undefined,
      `${nJobs} jobs, concurrency ${CONCURRENCY}; each job is one streaming call to the fake model in its own process`,
    ];
    const rows: Row[] = specs.map(([scenario, unit], k) =>
      gwFigures
        ? row({
            scenario,
            unit,
            tsclaw: tsFigures[k]!,
            baseline: gwFigures[k]!,
            target: null,
            ratioNote: unit === "ms" ? "time tsclaw ÷ graphile (lower is better)" : undefined,
            note: notes[k],
          })
        : notInstalled(scenario, unit, null, pg.missing!, tsFigures[k]!),
    );
    rows.push(
      unavailable(
        "tasks: tsclaw on PostgreSQL vs graphile-worker",
        "jobs/s",
        null,
        "not built yet: tsclaw has no PostgreSQL store yet",
      ),
    );
    return rows;
  } finally {
    await claw.close();
    fakeChild.kill("SIGTERM");
    tmp.remove();
    await stopAll([pg]);
  }
}
