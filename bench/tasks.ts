/**
 * Tasks: (1) check_task wake-up: a client waits in check_task over HTTP; the task is cancelled
 * in-process; the time from the status change to the waiting HTTP response, vs a raw node:http
 * long poll woken by the same kind of SQLite update. (2) run_task + check_task against the fake
 * Responses server (its own process), 20 sessions in parallel, passes interleaved with the same number of direct
 * `openai` streaming calls to the same fake server: throughput and the overhead beyond the
 * model's own time. Both again with tsclaw on PostgreSQL (a server of the scenario's own; the
 * raw long poll woken after a `pg` UPDATE), next to the SQLite rows.
 */

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import OpenAI from "openai";
import { listenHttp } from "../adapters/http.js";
import { createAccessPolicy } from "../adapters/security.js";
import type { Claw } from "../src/index.js";
import { childMessages, now, percentile, pool, sidesInTurn, size, spawnBenchScript, tempDir } from "./measure.js";
import { bareModelCall } from "./model-call.js";
import { notInstalled, stopAll } from "./peers/peer-rows.js";
import { postJson } from "./post-json.js";
import { type BenchStore, checkUntilCompleted, modelClaw, pgVsSqlite, SQLITE, startPgStore } from "./stores.js";
import { type Row, row } from "./table.js";

// Wake-ups before the measured ones, on both sides: a served claw runs far longer than a bench,
// and its first few thousand wake-ups are slower while V8 optimises the path. Counted in blocks
// of 500 (2026-12-06, with --trace-opt): 494, 160, 104, 72, 38, 28, then ~8 functions optimised
// a block, and tsclaw's p50 0.47, 0.41, 0.39, 0.34, 0.31, 0.29, then 0.27–0.29 ms; its p99 stays
// at 1.4–2.1 ms for the first 2 000 (the optimising compiler's threads take the second core),
// 0.54–0.60 after. After 300 the row measured the warm-up: p99 ratios of 2.1–4.0.
const WAKE_WARMUP = size(3000, 10);
// The client sends a token to both servers, as every peer of a served claw must.
const TOKEN = randomBytes(24).toString("base64url");

/** Latency (ms) from the in-process change to the client's response, one task at a time. */
async function wakeTsclaw(claw: Claw, url: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const task = await claw.task.create({ title: `wake ${i}` });
    const answered = postJson(
      `${url}/do`,
      { op: "check_task", args: { taskId: task.taskId, waitMs: 30_000 } },
      TOKEN,
    ).then(() => now());
    // Start the change only once the server is really waiting (check_task counted the poll).
    for (let k = 0; (await claw.task.get({ taskId: task.taskId })).pollCount < 1; k++) {
      if (k > 1000) throw new Error("check_task never started waiting");
      await new Promise((r) => setTimeout(r, 1));
    }
    await new Promise((r) => setTimeout(r, 2));
    const t0 = now();
    await claw.task.cancel({ taskId: task.taskId });
    out.push((await answered) - t0);
  }
  return out;
}

/** The raw long poll in its own process (wake-raw.ts), on a SQLite file or a PostgreSQL url. */
async function rawWaker(target: string) {
  const child = spawnBenchScript("wake-raw.ts", [target], {}, [], "pipe");
  const messages = childMessages(child);
  await messages.next((m) => m.ready === true);
  return {
    wake: async (n: number, from: number): Promise<number[]> => {
      child.stdin!.write(`${JSON.stringify({ n, from })}\n`);
      return (await messages.next((m) => Array.isArray(m.lat))).lat;
    },
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.stdin!.end();
      await exited;
    },
  };
}
type RawWaker = Awaited<ReturnType<typeof rawWaker>>;

/** One measured pass: its wall time and each task's (or call's) own duration. */
interface Pass {
  ms: number;
  durations: number[];
}

/** `perSession` run_tasks in each of `sessions` new sessions (keys `bench-<pass>-<n>`), in parallel. */
async function runTasks(claw: Claw, sessions: number, perSession: number, pass: string): Promise<Pass> {
  const durations: number[] = [];
  const t0 = now();
  await pool(sessions, sessions, async (s) => {
    for (let i = 0; i < perSession; i++) {
      const start = now();
      const t = await claw.task.run({ prompt: `task ${i}`, sessionKey: `bench-${pass}-${s}` });
      await checkUntilCompleted(claw, t.taskId);
      durations.push(now() - start);
    }
  });
  return { ms: now() - t0, durations };
}

async function rawCalls(baseURL: string, sessions: number, perSession: number): Promise<Pass> {
  const client = new OpenAI({ baseURL, apiKey: "bench" });
  const durations: number[] = [];
  const t0 = now();
  await pool(sessions, sessions, async () => {
    for (let i = 0; i < perSession; i++) {
      const start = now();
      await bareModelCall(client, `task ${i}`);
      durations.push(now() - start);
    }
  });
  return { ms: now() - t0, durations };
}

/** A claw on a fresh database of `store`, served over HTTP, talking to the fake model. */
async function servedClaw(store: BenchStore, fakeUrl: string) {
  const { claw, close } = await modelClaw(store, fakeUrl);
  const http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy: createAccessPolicy({ token: TOKEN }) });
  return {
    claw,
    url: http.url,
    close: async () => {
      await http.close();
      await close();
    },
  };
}

// Passes per side: a pass of 200 tasks lasts about a second, and a single pass per side left
// the ratio to whichever side a neighbour's burst hit.
const RUN_PASSES = size(5, 1);

const faster = (a: Pass | undefined, b: Pass) => (a && a.ms <= b.ms ? a : b);

// Wake-ups a side in each block; the sides take turns by block. Run one side after the other,
// the row followed whichever side a spell of the VM's noise fell on: the raw side's p99 alone
// swung 0.80–5.70 ms between full runs while tsclaw's stayed within 1.67–2.40 ms.
const WAKE_BLOCK = 50;

/** Both sides' wake-up latencies, warmed up, in alternating blocks of WAKE_BLOCK. */
async function wakeBoth(claw: Claw, url: string, raw: RawWaker, n: number) {
  await wakeTsclaw(claw, url, WAKE_WARMUP);
  await raw.wake(WAKE_WARMUP, 0);
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let block = 0; block * WAKE_BLOCK < n; block++) {
    const from = block * WAKE_BLOCK;
    const k = Math.min(WAKE_BLOCK, n - from);
    const [a, b] = await sidesInTurn(
      block,
      () => wakeTsclaw(claw, url, k),
      () => raw.wake(k, WAKE_WARMUP + from),
    );
    ours.push(...a);
    theirs.push(...b);
  }
  return { ours, theirs };
}

/**
 * Wake-ups (both sides, `longPoll` the raw one), then run_task passes interleaved
 * with passes of bare model calls (alternating which goes first), each warmed up first; the
 * fastest pass of each side.
 */
async function measureStore(
  store: BenchStore,
  longPoll: RawWaker,
  fakeUrl: string,
  wakes: number,
  sessions: number,
  perSession: number,
) {
  const served = await servedClaw(store, fakeUrl);
  try {
    const { ours: wake, theirs: rawWake } = await wakeBoth(served.claw, served.url, longPoll, wakes);
    // Warm-up: the first hundred runs are several times slower (JIT, prepared statements).
    await runTasks(served.claw, sessions, size(5, 1), "warm-up");
    await rawCalls(fakeUrl, sessions, size(5, 1));
    let tasks: Pass | undefined;
    let raw: Pass | undefined;
    for (let pass = 0; pass < RUN_PASSES; pass++) {
      const [ours, theirs] = await sidesInTurn(
        pass,
        () => runTasks(served.claw, sessions, perSession, String(pass)),
        () => rawCalls(fakeUrl, sessions, perSession),
      );
      tasks = faster(tasks, ours);
      raw = faster(raw, theirs);
    }
    return { wake, rawWake, tasks: tasks!, raw: raw! };
  } finally {
    await served.close();
  }
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  // 1 000 wake-ups a side: with 200 the p99 was the second slowest, and the row swung 0.29–2.58
  // between full runs with the raw side's own tail.
  const wakes = size(1000, 30);
  const sessions = 20;
  const perSession = size(10, 2);
  const tmp = tempDir();
  const fakeChild = spawnBenchScript("fake-model.ts");
  const { url: fakeUrl } = (await childMessages(fakeChild).next((m) => typeof m.url === "string")) as { url: string };
  let pg: Awaited<ReturnType<typeof startPgStore>> | undefined;
  try {
    const liteRaw = await rawWaker(join(tmp.dir, "raw-wake.db"));
    const lite = await measureStore(SQLITE, liteRaw, fakeUrl, wakes, sessions, perSession).finally(() =>
      liteRaw.close(),
    );
    const raw = lite.rawWake;
    const rr = lite.raw;
    const total = sessions * perSession;
    const p = (xs: number[], q: number) => percentile(xs, q);
    const ts = lite.wake;
    const tr = lite.tasks;
    const rows = [
      row({
        scenario: "check_task wake-up p50",
        unit: "ms",
        tsclaw: p(ts, 50),
        baseline: p(raw, 50),
        target: null,
        ratioNote: "time tsclaw ÷ raw (lower is better)",
        note: `${wakes} tasks after ${WAKE_WARMUP} warm-up wake-ups (each side), the sides taking turns in blocks of ${WAKE_BLOCK}; raw = node:http long poll woken after a SQLite UPDATE`,
      }),
      row({
        scenario: "check_task wake-up p99",
        unit: "ms",
        tsclaw: p(ts, 99),
        baseline: p(raw, 99),
        target: { op: "<=", value: 1.25 },
        ratioNote: "time tsclaw ÷ raw (lower is better)",
      }),
      row({
        scenario: "run_task + check_task (fake model)",
        unit: "tasks/s",
        tsclaw: (total / tr.ms) * 1000,
        baseline: (total / rr.ms) * 1000,
        target: { op: ">=", value: 0.6 },
        note: `${total} tasks over ${sessions} new sessions a pass, best of ${RUN_PASSES} passes per side, interleaved; raw = direct openai streaming calls to the same fake server`,
      }),
      row({
        scenario: "run_task overhead beyond the model, p99",
        unit: "ms",
        tsclaw: Math.max(0, p(tr.durations, 99) - p(rr.durations, 99)),
        baseline: null,
        target: null,
        note: `task p50 ${p(tr.durations, 50).toFixed(1)} ms / p99 ${p(tr.durations, 99).toFixed(1)} ms vs model call p50 ${p(rr.durations, 50).toFixed(1)} ms / p99 ${p(rr.durations, 99).toFixed(1)} ms`,
      }),
    ];
    const pgRows = [
      ["check_task wake-up p50 on PostgreSQL", "ms"],
      ["check_task wake-up p99 on PostgreSQL", "ms"],
      ["run_task + check_task (fake model) on PostgreSQL", "tasks/s"],
    ] as const;
    // Started once the SQLite rows are measured: a server starting up (or idle, with its
    // background workers) is no part of what those rows compare.
    pg = await startPgStore();
    if (!pg.peer) {
      for (const [scenario, unit] of pgRows) rows.push(notInstalled(scenario, unit, null, pg.missing));
      return rows;
    }
    const rawDb = await pg.peer.store.fresh();
    const pgRaw = await rawWaker(rawDb.db);
    const onPg = await measureStore(pg.peer.store, pgRaw, fakeUrl, wakes, sessions, perSession).finally(async () => {
      await pgRaw.close();
      await rawDb.remove();
    });
    const rawPgWake = onPg.rawWake;
    const pgRate = (total / onPg.tasks.ms) * 1000;
    const wakeNote = (q: number) => pgVsSqlite(p(onPg.wake, q), p(ts, q), "ms", true);
    rows.push(
      row({
        scenario: pgRows[0][0],
        unit: "ms",
        tsclaw: p(onPg.wake, 50),
        baseline: p(rawPgWake, 50),
        target: null,
        ratioNote: "time tsclaw ÷ raw (lower is better)",
        note: `${wakes} tasks, cancelled in-process on the serving node; raw = node:http long poll woken after a pg UPDATE commits; ${wakeNote(50)}`,
      }),
      row({
        scenario: pgRows[1][0],
        unit: "ms",
        tsclaw: p(onPg.wake, 99),
        baseline: p(rawPgWake, 99),
        target: null,
        ratioNote: "time tsclaw ÷ raw (lower is better)",
        note: wakeNote(99),
      }),
      row({
        scenario: pgRows[2][0],
        unit: "tasks/s",
        tsclaw: pgRate,
        baseline: (total / onPg.raw.ms) * 1000,
        target: null,
        note: `${total} tasks over ${sessions} sessions; raw = the same direct openai calls, interleaved with these passes; task p50 ${p(onPg.tasks.durations, 50).toFixed(1)} ms / p99 ${p(onPg.tasks.durations, 99).toFixed(1)} ms; ${pgVsSqlite(pgRate, (total / tr.ms) * 1000, "tasks/s")}`,
      }),
    );
    return rows;
  } finally {
    fakeChild.kill("SIGTERM");
    tmp.remove();
    if (pg) await stopAll([pg]);
  }
}
