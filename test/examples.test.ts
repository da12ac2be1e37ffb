/** Every example in examples/ runs, as a user would run it, against the fake Responses server (no network). */
import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listenHttp, type RunningHttp } from "../adapters/http.js";
import { createAccessPolicy } from "../adapters/security.js";
import { type AttachedWebSocket, attachWebSocket } from "../adapters/ws-server.js";
import type { Claw } from "../src/index.js";
import { cliCommand, ROOT } from "./adapters/cli-run.js";
import { type FakeResponses, startFakeResponses } from "./fixtures/fake-responses.js";
import { memClaw } from "./helpers/claw.js";

/** The token the served examples require and the client examples send. */
const TOKEN = "examples-token";

interface Run {
  child: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

let fake: FakeResponses;
const children: ChildProcess[] = [];
beforeAll(async () => {
  fake = await startFakeResponses();
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});
afterAll(async () => {
  await fake?.close();
});

/** Starts an example with the model pointed at the fake server. */
function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Run {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      CLAW_BASE_URL: fake.url,
      OPENROUTER_API_KEY: "fake-key",
      CLAW_DB: ":memory:",
      CLAW_URL: "",
      CLAW_TOKEN: TOKEN,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (err += c));
  return { child, out: () => out, err: () => err, exited: new Promise((r) => child.on("close", (code) => r(code))) };
}

const tsx = (file: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  start(process.execPath, ["--import", "tsx", `examples/${file}`, ...args], env);

async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("examples", () => {
  it("embed.ts: bus, bash, a session and a task in-process", async () => {
    const run = tsx("embed.ts");
    expect(await run.exited, run.err()).toBe(0);
    const out = run.out();
    expect(out).toContain("out: seq 1 on embed");
    expect(out).toContain('read: [{"hello":"world"},{"line":"one"},{"line":"two"}], next 3');
    expect(out).toContain("callback saw 3 events");
    expect(out).toContain("error: invalid_args");
    expect(out).toMatch(/^prompt: completed "ok"$/m);
    expect(out).toMatch(/^task: completed "ok"$/m);
  }, 60_000);

  it("serve.ts serves /do; orchestrator.ts runs a task there and polls it to the end", async () => {
    const server = tsx("serve.ts", [], { PORT: "0" });
    await waitFor(() => /listening (http:\S+)/.test(server.out()), "serve.ts to listen");
    const url = /listening (http:\S+)/.exec(server.out())![1]!;
    const doc = await fetch(`${url}/doc`);
    expect(await doc.text()).toContain("### `run_task`");
    const denied = await fetch(`${url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ op: "list_buses" }),
    });
    expect(denied.status).toBe(401);

    const orchestrator = tsx("orchestrator.ts", ["Count the files"], { CLAW_URL: url });
    expect(await orchestrator.exited, orchestrator.err()).toBe(0);
    const lines = orchestrator.out().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^started task_\S+: (todo|in_progress)$/);
    expect(lines.some((l) => /^poll 1: /.test(l))).toBe(true);
    expect(JSON.parse(lines[lines.length - 1]!)).toMatchObject({ status: "completed", summary: "ok" });

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 60_000);

  describe("ws-subscriber.ts", () => {
    let claw: Claw;
    let http: RunningHttp;
    let ws: AttachedWebSocket;
    afterEach(async () => {
      ws?.close();
      await http?.close();
      await claw?.close();
    });

    it("resumes after a dropped connection without losing or repeating an event", async () => {
      claw = memClaw();
      const policy = createAccessPolicy();
      http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy });
      ws = attachWebSocket(claw, http.server, { policy });
      const sub = tsx("ws-subscriber.ts", ["feed", "--after", "0", "--count", "6"], {
        CLAW_URL: http.url,
        CLAW_TOKEN: policy.token,
      });
      const printed = () => sub.out().split("\n").filter(Boolean).length;
      for (let i = 1; i <= 3; i++) await claw.bus.out({ bus: "feed", payload: { i } });
      await waitFor(() => printed() === 3, "the first three events");
      for (const client of ws.wss.clients) client.terminate(); // the network drops
      for (let i = 4; i <= 6; i++) await claw.bus.out({ bus: "feed", payload: { i } });
      expect(await sub.exited, sub.err()).toBe(0);
      const events = sub
        .out()
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(events.map((e) => [e.seq, e.payload.i])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, n]));
      expect(sub.err()).toMatch(/disconnected \(1006\); reconnecting in \d+ ms, after seq 3/);
    }, 60_000);
  });

  it("stdio-pipe.sh drives tsclaw stdio from bash", async () => {
    const cli = await cliCommand();
    const run = start("bash", ["examples/stdio-pipe.sh"], { TSCLAW: cli.join(" ") });
    expect(await run.exited, run.err()).toBe(0);
    const lines = run.out().trimEnd().split("\n");
    const byId = (id: string) => JSON.parse(lines.find((l) => l.startsWith(`{"id":"${id}"`))!);
    expect(byId("out")).toMatchObject({ ok: true, result: { bus: "pipe", seq: 1 } });
    expect(byId("bash")).toMatchObject({ ok: true, result: { stdout: "1\n2\n3\n", exitCode: 0 } });
    expect(byId("read").result.events.map((e: any) => e.payload)).toEqual([
      { from: "shell" },
      { n: "1" },
      { n: "2" },
      { n: "3" },
    ]);
    expect(byId("bad")).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    expect(lines[lines.length - 1]).toMatch(/^\{"id":1,"ok":true,"result":\{"instance":/);
  }, 60_000);
});
