/** Every example in examples/ runs, as a user would run it, against the fake Responses server (no network). */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { listenHttp, type RunningHttp } from "../adapters/http.js";
import { createAccessPolicy } from "../adapters/security.js";
import { type AttachedWebSocket, attachWebSocket } from "../adapters/ws-server.js";
import type { Claw } from "../src/index.js";
import { ROOT } from "./adapters/cli-run.js";
import { type FakeResponses, startFakeResponses } from "./fixtures/fake-responses.js";
import { memClaw } from "./helpers/claw.js";
import { WAIT } from "./helpers/wait.js";

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
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, "SIGKILL"); // the whole group: npx, tsx and the example
    } catch {
      // already gone
    }
  }
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
    detached: true, // its own process group: npx does not pass signals on to what it started
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (err += c));
  return { child, out: () => out, err: () => err, exited: new Promise((r) => child.on("close", (code) => r(code))) };
}

const README = readFileSync(`${ROOT}README.md`, "utf8");

/** The command the README's Examples table gives for `file`, run by bash as a user pastes it, with `args` appended. */
function readmeRun(file: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Run {
  const command = new RegExp(`^\\| \`([^\`]*examples/${file.replace(".", "\\.")}[^\`]*)\` \\|`, "m").exec(README)?.[1];
  if (!command) throw new Error(`README.md has no Examples line for ${file}`);
  const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return start("bash", ["-c", `${command} ${quoted}`], env);
}

const tsx = (file: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) => readmeRun(file, args, env);

/** Waits for a started example: up to 20 s (tsx compiles it first). */
const STARTED = { ...WAIT, timeout: 20_000 };

describe("examples", () => {
  it("embed.ts: bus, bash, a session and a task in-process", async () => {
    const run = tsx("embed.ts");
    expect(await run.exited, run.err()).toBe(0);
    const out = run.out();
    expect(out).toContain("out: seq 1 on embed");
    expect(out).toContain('read: [{"hello":"world"},{"line":"one"},{"line":"two"}], next 3');
    expect(out).toContain("callback saw 3 events");
    expect(out).toMatch(/^a bad bus name is refused with invalid_args: /m);
    expect(out).not.toMatch(/^error: /m);
    expect(out).toMatch(/^prompt: completed "ok"$/m);
    expect(out).toMatch(/^task: completed "ok"$/m);
  }, 60_000);

  it("serve.ts serves /do; orchestrator.ts runs a task there and polls it to the end", async () => {
    const server = tsx("serve.ts", [], { PORT: "0" });
    await vi.waitFor(() => expect(server.out(), "serve.ts listening").toMatch(/listening (http:\S+)/), STARTED);
    const url = /listening (http:\S+)/.exec(server.out())![1]!;
    const doc = await fetch(`${url}/doc`, { headers: { authorization: `Bearer ${TOKEN}` } });
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

    process.kill(-server.child.pid!, "SIGTERM"); // as Ctrl-C in a terminal reaches the whole group
    await server.exited;
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  }, 120_000);

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
      await vi.waitFor(() => expect(printed(), "the first three events").toBe(3), STARTED);
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

  it("embed.ts without a key: the session and the task run on the demo model", async () => {
    const run = tsx("embed.ts", [], { OPENROUTER_API_KEY: "", CLAW_BASE_URL: "" });
    expect(await run.exited, run.err()).toBe(0);
    const out = run.out();
    expect(out).toContain("OPENROUTER_API_KEY is not set: using the built-in demo model (no LLM)");
    expect(out).toMatch(/^prompt: completed "Demo model \(no LLM\): the command exited 0 and printed:/m);
    expect(out).toMatch(/^task: completed "Demo model/m);
  }, 60_000);

  it("orchestrator.ts with no server: one clear line and exit 1, no stack", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r)); // a port nothing listens on
    const run = tsx("orchestrator.ts", [], { CLAW_URL: `http://127.0.0.1:${port}` });
    expect(await run.exited).toBe(1);
    expect(run.err()).toBe(
      `orchestrator: cannot reach http://127.0.0.1:${port}: ECONNREFUSED (start a server with: npx tsclaw serve, or set CLAW_URL)\n`,
    );
  }, 60_000);

  it("stdio-pipe.sh drives tsclaw stdio from bash, as written (no TSCLAW, no tsclaw on PATH)", async () => {
    const run = tsx("stdio-pipe.sh", [], { TSCLAW: "" });
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
