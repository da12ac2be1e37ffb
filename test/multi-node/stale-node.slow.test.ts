/**
 * A node paused past its lease is fenced: node A runs a task's bash, is stopped (SIGSTOP) for
 * 7 s with `--lease 3s`; node B declares A's task lost and runs the session's next task. When
 * A resumes (SIGCONT), nothing of its old run lands in the session any more (its writes check
 * the session's lease in the same statement), and A stops that run instead of carrying on.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import {
  afterToolOutput,
  answer,
  callBash,
  type FakeResponses,
  startFakeResponses,
} from "../fixtures/fake-responses.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

const TOKEN = "stale-node-shared-token-0123456789";
let pgServer: PgServer;
let fake: FakeResponses;
let a: ServeProcess;
let b: ServeProcess;

async function ok(server: ServeProcess, op: string, args?: unknown): Promise<any> {
  const r = await server.op(op, args);
  if (!r.body.ok) throw new Error(`${op} on ${server.url}: ${JSON.stringify(r.body.error)}`);
  return r.body.result;
}

beforeAll(async () => {
  pgServer = await startPgServer();
  const db = await createTestDatabase(pgServer.url);
  fake = await startFakeResponses();
  // "first" sleeps 4 s in bash; "second" 3 s; each answers once its output is back.
  fake.setDefault((req) => {
    const input = JSON.stringify(req.body.input);
    if (afterToolOutput(req)) return answer(input.includes("second") ? "second done" : "first done");
    return callBash({ script: input.includes("second") ? "sleep 3; echo second" : "sleep 4; echo first" });
  });
  a = await startServe(db, ["--base-url", fake.url, "--lease", "3s"], { CLAW_TOKEN: TOKEN });
  b = await startServe(db, ["--base-url", fake.url, "--lease", "3s"], { CLAW_TOKEN: TOKEN });
}, 120_000);

afterAll(async () => {
  for (const s of [a, b]) {
    if (!s || s.child.exitCode !== null || s.child.signalCode !== null) continue;
    s.child.kill("SIGCONT");
    await s.stop().catch(() => {});
  }
  await fake?.close();
  await pgServer?.stop();
}, 60_000);

it("a node stopped 7 s with --lease 3s writes nothing of its old run once resumed, and stops it", async () => {
  const first = await ok(a, "run_task", { prompt: "first", sessionKey: "stale" });
  await expect
    .poll(async () => (await ok(b, "get_messages", { sessionKey: "stale" })).messages.map((m: any) => m.role), {
      timeout: 20_000,
      interval: 50,
    })
    .toContain("tool_call");
  a.child.kill("SIGSTOP");
  const stoppedAt = Date.now();
  let second: any;
  try {
    second = await ok(b, "run_task", { prompt: "second", sessionKey: "stale" });
    await expect
      .poll(async () => (await ok(b, "get_task", { taskId: first.taskId })).status, { timeout: 20_000 })
      .toBe("error");
    await expect
      .poll(async () => (await ok(b, "get_task", { taskId: second.taskId })).status, { timeout: 20_000 })
      .toBe("in_progress");
    // The stop itself (time is what is tested): A stays stopped 7 s in all, more than two of its
    // 3 s leases, however fast B took its work over.
    await new Promise((r) => setTimeout(r, Math.max(0, 7000 - (Date.now() - stoppedAt))));
  } finally {
    a.child.kill("SIGCONT");
  }
  await expect
    .poll(async () => (await ok(b, "get_task", { taskId: second.taskId })).status, { timeout: 30_000 })
    .toBe("completed");
  // A has settled: its old run is no longer running there.
  await expect
    .poll(async () => (await ok(a, "get_state", { sessionKey: "stale" })).isRunning, { timeout: 20_000 })
    .toBe(false);
  const lost = await ok(b, "get_task", { taskId: first.taskId });
  expect(lost.error?.code).toBe("node_lost");
  const messages = (await ok(b, "get_messages", { sessionKey: "stale" })).messages as any[];
  const runOf = (taskPrompt: string) => messages.find((m) => m.role === "user" && m.text === taskPrompt)?.runId;
  const [oldRun, newRun] = [runOf("first"), runOf("second")];
  expect(oldRun).toBeTruthy();
  expect(newRun).toBeTruthy();
  const firstOfNew = messages.findIndex((m) => m.runId === newRun);
  const strays = messages.slice(firstOfNew).filter((m) => m.runId === oldRun);
  expect(strays, JSON.stringify(messages.map((m) => [m.seq, m.runId === oldRun ? "old" : "new", m.role]))).toEqual([]);
  // The old run's answer never came: the model was not asked again for it after A resumed.
  expect(messages.some((m) => m.role === "assistant" && m.text === "first done")).toBe(false);
}, 120_000);
