/**
 * Memory: resident size (RSS) growth of a claw (a) while storing N events, (b) over M tasks run
 * against the fake model (its own process), and (c) serving one stalled WebSocket subscriber
 * while K events flow, and (d) over C calls made as the adapters make them (each with the
 * caller's abort signal), the shape of a long-running server's traffic. Each is judged against a stated bound; the baseline column is the RSS
 * of the freshly opened claw before the load.
 */
import { join } from "node:path";
import { listenHttp } from "../adapters/http.js";
import { createAccessPolicy } from "../adapters/security.js";
import { attachWebSocket } from "../adapters/ws-server.js";
import { createClaw } from "../src/index.js";
import { childMessages, pool, rssMiB, settledRss, size, spawnBenchScript, tempDir } from "./measure.js";
import { samplePayload } from "./raw-db.js";
import { type Row, row } from "./table.js";

/** Bounds on RSS growth, in MiB. */
const BOUND = { events: 160, tasks: 48, stalled: 96, calls: 64 };

/** Samples RSS every 20 ms while `work` runs; returns the peak. */
async function peakRss(work: () => Promise<void>): Promise<number> {
  let peak = rssMiB();
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB())), 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssMiB());
}

async function events(dir: string, n: number): Promise<Row> {
  const claw = createClaw({ db: join(dir, "events.db"), project: "bench" });
  try {
    const before = await settledRss();
    const peak = await peakRss(() => pool(1000, n, (i) => claw.bus.out({ payload: samplePayload(i) })));
    const after = await settledRss();
    return row({
      scenario: `RSS growth, ${n} events stored`,
      unit: "MiB",
      tsclaw: after - before,
      baseline: before,
      ratio: null,
      target: { op: "<=", value: BOUND.events, of: "tsclaw" },
      note: `peak during ${(peak - before).toFixed(0)} MiB above the fresh claw's ${before.toFixed(0)} MiB`,
    });
  } finally {
    await claw.close();
  }
}

/** The model client's own growth over the same calls: {before, middle, after, peak} in MiB. */
async function clientAlone(url: string, n: number, concurrency: number) {
  const child = spawnBenchScript("model-calls-rss.ts", [url, String(n), String(concurrency)], {}, ["--expose-gc"]);
  return (await childMessages(child).next((m) => typeof m.after === "number")) as {
    before: number;
    middle: number;
    after: number;
    peak: number;
  };
}

async function tasks(dir: string, n: number): Promise<Row> {
  const fakeChild = spawnBenchScript("fake-model.ts");
  const { url } = (await childMessages(fakeChild).next((m) => typeof m.url === "string")) as { url: string };
  const claw = createClaw({
    db: join(dir, "tasks.db"),
    project: "bench",
    baseURL: url,
    env: { ...process.env, OPENROUTER_API_KEY: "bench" },
  });
  try {
    // From a claw that has started (its storage open, its services up): the growth is the tasks'.
    await claw.ready();
    const before = await settledRss();
    const sessions = 100;
    const half = (from: number) =>
      pool(sessions, sessions, async (s) => {
        for (let i = from + s; i < from + n / 2; i += sessions) {
          const t = await claw.task.run({ prompt: `task ${i}`, sessionKey: `mem-${s}` });
          let c = await claw.task.check({ taskId: t.taskId, waitMs: 60_000 });
          while (!c.isTerminal) c = await claw.task.check({ taskId: t.taskId, waitMs: 60_000 });
        }
      });
    let middle = 0;
    const peak = await peakRss(async () => {
      await half(0);
      middle = await settledRss();
      await half(n / 2);
    });
    const after = await settledRss();
    const client = await clientAlone(url, n, sessions);
    const mib = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(0)} MiB`;
    return row({
      scenario: `RSS growth, ${n} tasks run`,
      unit: "MiB",
      tsclaw: after - before,
      baseline: before,
      ratio: null,
      target: { op: "<=", value: BOUND.tasks, of: "tsclaw" },
      note: `run_task + check_task over ${sessions} sessions against the fake model; peak ${mib(peak - before)}; settled over the second ${n / 2} tasks ${mib(after - middle)}; the model client alone (the same ${n} streaming calls, ${sessions} at a time, made directly with openai in a fresh process): ${mib(client.after - client.before)} (peak ${mib(client.peak - client.before)}, second half ${mib(client.after - client.middle)})`,
    });
  } finally {
    await claw.close();
    fakeChild.kill("SIGTERM");
  }
}

async function stalled(dir: string, n: number): Promise<Row> {
  const claw = createClaw({ db: join(dir, "stall.db"), project: "bench" });
  const policy = createAccessPolicy({ token: "bench-stall-token" });
  const http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy });
  const ws = attachWebSocket(claw, http.server, { policy });
  const child = spawnBenchScript("ws-clients.ts", [`${http.url.replace("http", "ws")}/ws`, "stall", "1", String(n)], {
    BENCH_TOKEN: policy.token,
  });
  try {
    await childMessages(child).next((m) => m.ready === true);
    const before = await settledRss();
    const peak = await peakRss(() => pool(1000, n, (i) => claw.bus.out({ bus: "fan", payload: samplePayload(i) })));
    const cut = ws.wss.clients.size === 0;
    return row({
      scenario: `RSS peak growth, 1 stalled WS subscriber, ${n} events`,
      unit: "MiB",
      tsclaw: peak - before,
      baseline: before,
      ratio: null,
      target: { op: "<=", value: BOUND.stalled, of: "tsclaw" },
      note: cut
        ? "the stalled subscriber was closed (4008) at the send-buffer high-water mark"
        : "the stalled subscriber was NOT closed",
    });
  } finally {
    child.kill("SIGKILL");
    ws.close();
    await http.close();
    await claw.close();
  }
}

async function calls(n: number): Promise<Row> {
  const claw = createClaw({ db: ":memory:", project: "bench" });
  try {
    for (let i = 0; i < 1000; i++)
      await claw.do({ op: "read", args: { bus: "none" } }, { transport: "http", signal: new AbortController().signal });
    const before = await settledRss();
    for (let i = 0; i < n; i++)
      await claw.do({ op: "read", args: { bus: "none" } }, { transport: "http", signal: new AbortController().signal });
    const after = await settledRss();
    return row({
      scenario: `RSS growth, ${n} calls with a caller signal`,
      unit: "MiB",
      tsclaw: after - before,
      baseline: before,
      ratio: null,
      target: { op: "<=", value: BOUND.calls, of: "tsclaw" },
      note: "claw.do of read with an AbortSignal per call, as /do, WebSocket and stdio call it; after GC",
    });
  } finally {
    await claw.close();
  }
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const tmp = tempDir();
  try {
    return [
      await events(tmp.dir, size(1_000_000, 20_000)),
      await tasks(tmp.dir, size(10_000, 200)),
      await stalled(tmp.dir, size(100_000, 20_000)),
      await calls(size(200_000, 30_000)),
    ];
  } finally {
    tmp.remove();
  }
}
