/**
 * Task queues against graphile-worker on a PostgreSQL the bench starts itself. Both sides do the
 * same work per job: one streaming call to the fake Responses model (its own process).
 *   - enqueue rate: task_create vs addJob, 20 callers at once;
 *   - enqueue → start latency, one job at a time on an idle queue: run_task until the task is
 *     in_progress (seen by an in-process check_task until "update") vs addJob until the
 *     graphile-worker task function is called;
 *   - jobs/s: N jobs added at once by 20 callers and run 20 at a time, the same model call per
 *     job: N run_task tasks over 20 new sessions (each session runs its tasks in turn), then each
 *     awaited with check_task, vs N graphile jobs with concurrency 20, counted on job:success;
 *     the best of JOB_PASSES passes per side, the sides taking turns on PostgreSQL.
 *     The fake model records the request bodies of tsclaw's run on PostgreSQL, and graphile's
 *     job i sends body i (instructions, the bash tool, the session's history so far): the very
 *     calls tsclaw made, not a one-line request next to tsclaw's ~10 KB ones.
 *     On PostgreSQL also: the same tasks with each session's next task sent only once its last
 *     one ended (a caller waiting on each, one round trip more per task), against the same
 *     graphile figure.
 * tsclaw runs twice: on SQLite, and on a fresh database of the same PostgreSQL graphile-worker
 * uses (its rows say "on PostgreSQL"), with the average enqueue → start set against
 * graphile-worker's published 4.16 ms.
 */

import { Logger, makeWorkerUtils, type Runner, run as runWorker, type WorkerUtils } from "graphile-worker";
import OpenAI from "openai";
import type { Claw } from "../src/index.js";
import { childMessages, now, percentile, pool, sidesInTurn, size, spawnBenchScript } from "./measure.js";
import { bodyRecorder, recordedCall } from "./model-call.js";
import { notInstalled, stopAll } from "./peers/peer-rows.js";
import { type BenchStore, checkUntilCompleted, checkUntilEnded, modelClaw, SQLITE, startPgStore } from "./stores.js";
import { type Row, row, type Target } from "./table.js";

const CONCURRENCY = 20;
/** graphile-worker's README: "average latency from add to start of 4.16ms" (its own benchmark). */
const GRAPHILE_PUBLISHED_MS = 4.16;
const silent = new Logger(() => () => {});

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
    await checkUntilEnded(claw, t.taskId, 30_000);
  }
  return out;
}

/**
 * `n` run tasks over CONCURRENCY new sessions (keys `jobs-<pass>-<n>`, so every pass's histories
 * grow alike), added at once by CONCURRENCY callers (as graphile's jobs are), then each awaited.
 */
async function tsclawJobs(claw: Claw, n: number, pass: string): Promise<number> {
  const t0 = now();
  const ids = new Array<string>(n);
  await pool(CONCURRENCY, n, async (i) => {
    ids[i] = (await claw.task.run({ prompt: `job ${i}`, sessionKey: `jobs-${pass}-${i % CONCURRENCY}` })).taskId;
  });
  await pool(CONCURRENCY, n, (i) => checkUntilCompleted(claw, ids[i]!));
  return now() - t0;
}

/**
 * `n` run tasks over the sessions of tsclawJobs' pass `pass`, each session's next one sent once
 * its last one ended.
 */
async function tsclawJobsInTurn(claw: Claw, n: number, pass: string): Promise<number> {
  const t0 = now();
  await pool(CONCURRENCY, CONCURRENCY, async (s) => {
    for (let i = s; i < n; i += CONCURRENCY) {
      const t = await claw.task.run({ prompt: `job ${i}`, sessionKey: `jobs-${pass}-${s}` });
      await checkUntilCompleted(claw, t.taskId);
    }
  });
  return now() - t0;
}

/**
 * graphile-worker with one task "job" that makes the model call and reports when it started.
 * Job i sends `bodies[i]` (tsclaw's recorded requests, cycled).
 */
async function graphile(url: string, fakeUrl: string, bodies: readonly OpenAI.Responses.ResponseCreateParams[]) {
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
        await recordedCall(client, bodies, (payload as { i: number }).i);
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

// Passes of the jobs/s rows per side, the best kept. A pass of 400 jobs lasts about a second,
// and single passes read tsclaw 402–469 and graphile-worker 417–507 jobs/s across full runs of
// one commit (the row 0.896–1.06).
const JOB_PASSES = size(3, 1);
const PASSES_NOTE = JOB_PASSES === 1 ? "one pass per side" : `best of ${JOB_PASSES} passes per side`;

interface Figures {
  enq: number;
  lat: number[];
  jobs: number;
  /** tsclaw: the same jobs, each session's next one sent once its last one ended. */
  inTurn?: number;
}

/**
 * tsclaw on a fresh database of `store`, warmed up: its enqueue and start-latency figures and
 * its first jobs pass, the claw kept open for more passes. With `recorder` (the run
 * graphile-worker is set against, on its PostgreSQL) that first pass's request bodies are kept
 * for graphile-worker to send the same.
 */
async function tsclawSide(
  store: BenchStore,
  fakeUrl: string,
  n: { enqueue: number; latency: number; jobs: number },
  recorder?: ReturnType<typeof bodyRecorder>,
) {
  const { claw, close } = await modelClaw(store, fakeUrl);
  try {
    await tsclawEnqueue(claw, Math.min(200, n.enqueue));
    await tsclawJobs(claw, CONCURRENCY * 2, "warm-up");
    const enq = await tsclawEnqueue(claw, n.enqueue);
    const lat = await tsclawStartLatency(claw, n.latency);
    await recorder?.start();
    const first = await tsclawJobs(claw, n.jobs, "0");
    const bodies = (await recorder?.take()) ?? [];
    return {
      enq,
      lat,
      first,
      bodies,
      jobs: (pass: number) => tsclawJobs(claw, n.jobs, String(pass)),
      /** The first pass's sessions again, each session's next task sent once its last ended. */
      inTurn: () => tsclawJobsInTurn(claw, n.jobs, "0"),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const nEnqueue = size(2000, 100);
  const nLatency = size(200, 20);
  const nJobs = size(400, 40);
  const fakeChild = spawnBenchScript("fake-model.ts", [], {}, [], "pipe");
  const fakeMessages = childMessages(fakeChild);
  const { url: fakeUrl } = (await fakeMessages.next((m) => typeof m.url === "string")) as { url: string };
  const pg = await startPgStore();
  try {
    // Warm-up, then measure: tsclaw on SQLite, then tsclaw on PostgreSQL and graphile-worker
    // (their jobs/s passes taking turns).
    const counts = { enqueue: nEnqueue, latency: nLatency, jobs: nJobs };
    const liteSide = await tsclawSide(SQLITE, fakeUrl, counts);
    let liteJobs = liteSide.first;
    try {
      for (let pass = 1; pass < JOB_PASSES; pass++) liteJobs = Math.min(liteJobs, await liteSide.jobs(pass));
    } finally {
      await liteSide.close();
    }
    const lite: Figures = { enq: liteSide.enq, lat: liteSide.lat, jobs: liteJobs };
    let onPg: Figures | null = null;
    let gw: Figures | null = null;
    let bodyBytes = 0;
    if (pg.peer) {
      const side = await tsclawSide(pg.peer.store, fakeUrl, counts, bodyRecorder(fakeChild, fakeMessages));
      try {
        if (side.bodies.length < nJobs) throw new Error(`the fake model kept ${side.bodies.length} of ${nJobs} bodies`);
        bodyBytes = mean(side.bodies.map((b) => JSON.stringify(b).length));
        const g = await graphile(pg.peer.server.url, fakeUrl, side.bodies);
        try {
          await g.jobs(CONCURRENCY * 2); // warm-up
          const enq = await g.enqueue(nEnqueue);
          const lat = await g.startLatency(nLatency);
          // tsclaw's recorded pass was the first; graphile-worker's follows it, then the sides
          // take turns going first (each tsclaw pass in new sessions whose histories grow as the
          // recorded ones did, so graphile's recorded bodies stay the same calls).
          let tsJobs = side.first;
          let gwJobs = await g.jobs(nJobs);
          for (let pass = 1; pass < JOB_PASSES; pass++) {
            const [ts, theirs] = await sidesInTurn(
              pass,
              () => side.jobs(pass),
              () => g.jobs(nJobs),
            );
            tsJobs = Math.min(tsJobs, ts);
            gwJobs = Math.min(gwJobs, theirs);
          }
          gw = { enq, lat, jobs: gwJobs };
          onPg = { enq: side.enq, lat: side.lat, jobs: tsJobs, inTurn: await side.inTurn() };
        } finally {
          await g.close();
        }
      } finally {
        await side.close();
      }
    }
    const rate = (count: number, ms: number) => (count / ms) * 1000;
    const p = percentile;
    const figures = (f: Figures) => [rate(nEnqueue, f.enq), p(f.lat, 50), p(f.lat, 99), rate(nJobs, f.jobs)];
    const specs = [
      ["task_create vs graphile addJob, 20 callers", "jobs/s"],
      ["enqueue → start p50, run_task vs graphile", "ms"],
      ["enqueue → start p99, run_task vs graphile", "ms"],
      ["run_task jobs/s vs graphile-worker (same model call)", "jobs/s"],
    ] as const;
    const notes = [
      `${nEnqueue} jobs; tsclaw SQLite (WAL, synchronous=NORMAL) vs graphile-worker 0.17 on PostgreSQL defaults (synchronous_commit on)`,
      `${nLatency} jobs one at a time on an idle queue; tsclaw start = in_progress seen by check_task; graphile start = task function called (LISTEN/NOTIFY)`,
      undefined,
      `${nJobs} jobs added at once, ${CONCURRENCY} at a time, ${PASSES_NOTE} (tsclaw: ${CONCURRENCY} new sessions a pass, each running its tasks in turn; each task awaited with check_task); the same streaming call to the fake model (its own process) per job: graphile sends the bodies tsclaw sent`,
    ];
    const pgNotes = [
      `${nEnqueue} jobs; tsclaw and graphile-worker on one PostgreSQL (defaults: synchronous_commit on), each in a database of its own`,
      undefined,
      undefined,
      `${nJobs} jobs added at once, ${CONCURRENCY} at a time, ${PASSES_NOTE}, the sides taking turns (tsclaw: ${CONCURRENCY} new sessions a pass, each running its tasks in turn, each task awaited with check_task; graphile: ${CONCURRENCY} workers); the same call per job: graphile's job i sends the body tsclaw's task i sent (instructions, the bash tool, the session's history: BODY_BYTES bytes on average); tsclaw ~5.4 statements per run task with ${CONCURRENCY} sessions at once (npx tsx bench/job-cpu.ts --statements; bench/pg-round-trips.ts counts them one task at a time), its writes sent in groups of ~5 while one is on its way (~1 round trip and commit per run task), graphile-worker 3 statements per job`,
    ];
    /** The PostgreSQL jobs/s row: at least graphile-worker's rate on the same server. */
    const pgTargets: readonly (Target | null)[] = [null, null, null, { op: ">=", value: 1 }];
    const rowsOf = (
      prefix: string,
      ts: Figures | null,
      why: (string | undefined)[],
      targets?: readonly (Target | null)[],
    ) => {
      const tsFigures = ts ? figures(ts) : null;
      const gwFigures = gw ? figures(gw) : null;
      return specs.map(([name, unit], k) =>
        tsFigures && gwFigures
          ? row({
              scenario: `${prefix}${name}`,
              unit,
              tsclaw: tsFigures[k]!,
              baseline: gwFigures[k]!,
              target: targets?.[k] ?? null,
              ratioNote: unit === "ms" ? "time tsclaw ÷ graphile (lower is better)" : undefined,
              note: why[k],
            })
          : notInstalled(`${prefix}${name}`, unit, targets?.[k] ?? null, pg.missing!, tsFigures?.[k] ?? null),
      );
    };
    pgNotes[3] = pgNotes[3]!.replace("BODY_BYTES", Math.round(bodyBytes).toLocaleString("en-US"));
    const rows: Row[] = [
      ...rowsOf("tasks: ", lite, notes),
      ...rowsOf("tasks on PostgreSQL: ", onPg, pgNotes, pgTargets),
    ];
    const inTurn =
      "tasks on PostgreSQL: run_task jobs/s, each session's next task sent once its last ended, vs graphile-worker";
    rows.push(
      onPg?.inTurn && gw
        ? row({
            scenario: inTurn,
            unit: "jobs/s",
            tsclaw: rate(nJobs, onPg.inTurn),
            baseline: rate(nJobs, gw.jobs),
            target: null,
            note: `the row above's ${nJobs} tasks, but each of the ${CONCURRENCY} sessions' callers sends its next run_task once check_task saw its last one end (the shape of this row before 2026-12-06): a caller's round trip more per task; graphile's figure is the row above's`,
          })
        : notInstalled(inTurn, "jobs/s", null, pg.missing ?? "PostgreSQL"),
    );
    const average = "tasks on PostgreSQL: enqueue → start average, run_task vs graphile";
    if (onPg && gw) {
      const ts = mean(onPg.lat);
      const g = mean(gw.lat);
      rows.push(
        row({
          scenario: average,
          unit: "ms",
          tsclaw: ts,
          baseline: g,
          target: null,
          ratioNote: "time tsclaw ÷ graphile (lower is better)",
          note: `graphile-worker publishes ${GRAPHILE_PUBLISHED_MS} ms (its own benchmark, another machine): tsclaw ÷ published ${(ts / GRAPHILE_PUBLISHED_MS).toFixed(2)}, graphile here ÷ published ${(g / GRAPHILE_PUBLISHED_MS).toFixed(2)}; slowest start: tsclaw ${Math.max(...onPg.lat).toFixed(0)} ms, graphile ${Math.max(...gw.lat).toFixed(0)} ms; tsclaw on SQLite averages ${mean(lite.lat).toFixed(2)} ms`,
        }),
      );
    } else rows.push(notInstalled(average, "ms", null, pg.missing!));
    return rows;
  } finally {
    fakeChild.kill("SIGTERM");
    await stopAll([pg]);
  }
}
