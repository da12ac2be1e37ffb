/**
 * Durable approvals across real process ends: a run paused on an approval survives kill -9 and
 * SIGTERM (its task still waits, its approval still pending), and deciding it after the restart
 * runs the command exactly once (or, denied, never) and completes the task; a decision committed
 * just before a crash is resumed by the next start.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { answer, callBash, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { bundle } from "../helpers/bundle.js";
import { tempDir } from "../helpers/claw.js";

interface Child {
  proc: ChildProcess;
  call(op: string, args: object): Promise<any>;
  decideRaw(approvalId: string): void;
  exited: Promise<number | null>;
}

let fake: FakeResponses;
let dir: string;
let db: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  fake = await startFakeResponses();
  dir = tempDir();
  db = join(dir, "claw.db");
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await fake.close();
});

/**
 * Starts a claw process on the test's database; resolves once it is ready. The child runs from
 * a bundle of approval-child.ts: each test starts it two or three times.
 */
async function startChild(): Promise<Child> {
  const child = await bundle(join(import.meta.dirname, "approval-child.ts"));
  const proc = spawn(process.execPath, [child, db, fake.url], { stdio: ["pipe", "pipe", "inherit"] });
  children.push(proc);
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const waiting = new Map<number, (line: any) => void>();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  let buf = "";
  proc.stdout!.on("data", (chunk: Buffer) => {
    buf += chunk.toString();
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (msg.ready) ready();
      else waiting.get(msg.id)?.(msg);
    }
  });
  await Promise.race([isReady, exited.then(() => Promise.reject(new Error("the claw process exited early")))]);
  let next = 1;
  return {
    proc,
    exited,
    call(op, args) {
      const id = next++;
      proc.stdin!.write(`${JSON.stringify({ id, op, args })}\n`);
      return new Promise((resolve, reject) =>
        waiting.set(id, (m) =>
          m.error ? reject(Object.assign(new Error(m.error.message), m.error)) : resolve(m.result),
        ),
      );
    },
    decideRaw(approvalId) {
      proc.stdin!.write(`${JSON.stringify({ id: next++, decideRaw: approvalId })}\n`);
    },
  };
}

/** Starts a claw, runs a task whose one bash call asks for approval; resolves once it waits. */
async function pausedTask(marker: string, approval: object = { mode: "always" }) {
  fake.script(callBash({ script: `echo once >> ${marker}` }), answer("cleaned up"));
  const a = await startChild();
  const { taskId } = await a.call("run_task", {
    prompt: "clean up",
    sessionKey: "durable",
    approval,
  });
  const pending = await vi.waitFor(
    async () => {
      const [p] = (await a.call("approval_list", { status: "pending" })).approvals;
      expect(p).toBeDefined();
      return p;
    },
    { timeout: 15_000 },
  );
  await vi.waitFor(async () =>
    expect(await a.call("get_task", { taskId })).toMatchObject({ status: "needs_human", phase: "awaiting_approval" }),
  );
  return { a, taskId, approval: pending };
}

/** The restarted claw still shows the task waiting and the approval pending. */
async function expectStillWaiting(b: Child, taskId: string, approvalId: string) {
  expect(await b.call("get_task", { taskId })).toMatchObject({ status: "needs_human", phase: "awaiting_approval" });
  expect(await b.call("approval_get", { approvalId })).toMatchObject({ status: "pending" });
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
const completed = async (c: Child, taskId: string) =>
  vi.waitFor(
    async () => {
      const t = await c.call("get_task", { taskId });
      expect(t.status).toBe("completed");
      return t;
    },
    { timeout: 20_000 },
  );

test("kill -9 while pending: still pending after the restart; approve runs the command once and completes the task", async () => {
  const marker = join(dir, "marker");
  const { a, taskId, approval } = await pausedTask(marker);
  a.proc.kill("SIGKILL");
  await a.exited;

  const b = await startChild();
  await expectStillWaiting(b, taskId, approval.approvalId);
  expect(lines(marker)).toEqual([]);
  await b.call("approval_decide", { approvalId: approval.approvalId, decision: "approve" });
  const t = await completed(b, taskId);
  expect(t.summary).toBe("cleaned up");
  expect(lines(marker)).toEqual(["once"]);
  // The model got the command's output, from the history stored before the crash.
  const last = fake.requests.at(-1)!.body.input as any[];
  expect(last.some((i) => i.type === "message" && JSON.stringify(i.content).includes("clean up"))).toBe(true);
  expect(JSON.parse(last.filter((i) => i.type === "function_call_output").at(-1).output)).toMatchObject({
    exitCode: 0,
  });
  expect(await b.call("approval_get", { approvalId: approval.approvalId })).toMatchObject({ status: "approved" });
  b.proc.kill("SIGTERM");
  expect(await b.exited).toBe(0);
});

test("SIGTERM while pending: the clean close neither ends the run nor decides; deny after the restart runs nothing", async () => {
  const marker = join(dir, "marker");
  const { a, taskId, approval } = await pausedTask(marker);
  a.proc.kill("SIGTERM");
  expect(await a.exited).toBe(0);

  const b = await startChild();
  await expectStillWaiting(b, taskId, approval.approvalId);
  await b.call("approval_decide", { approvalId: approval.approvalId, decision: "deny", note: "not today" });
  await completed(b, taskId);
  expect(lines(marker)).toEqual([]);
  const last = fake.requests.at(-1)!.body.input as any[];
  expect(JSON.parse(last.filter((i) => i.type === "function_call_output").at(-1).output)).toEqual({
    denied: true,
    note: "not today",
  });
  b.proc.kill("SIGTERM");
  await b.exited;
});

test("a decision committed just before a crash is resumed by the next start, exactly once", async () => {
  const marker = join(dir, "marker");
  const { a, taskId, approval } = await pausedTask(marker);
  a.proc.kill("SIGKILL");
  await a.exited;

  const b = await startChild();
  await expectStillWaiting(b, taskId, approval.approvalId);
  b.decideRaw(approval.approvalId); // decided in the database, then killed before its run goes on
  await b.exited;

  const c = await startChild();
  await completed(c, taskId);
  expect(lines(marker)).toEqual(["once"]);
  c.proc.kill("SIGTERM");
  await c.exited;
});

test("decide racing with kill -9 and a restart: the command runs at most once and the task always ends", async () => {
  const marker = join(dir, "marker");
  const { a, taskId, approval } = await pausedTask(marker);
  a.proc.kill("SIGKILL");
  await a.exited;

  const b = await startChild();
  // The decision answers once its run is handed on; the kill lands anywhere in that run.
  void b.call("approval_decide", { approvalId: approval.approvalId, decision: "approve" }).catch(() => {});
  setTimeout(() => b.proc.kill("SIGKILL"), 30);
  await b.exited;

  const c = await startChild();
  // On a loaded machine the kill can land before b has committed the decision: the approval is
  // then still pending and the task rightly waits (as after a kill while pending). The caller,
  // who never got an answer, decides again; the command must still run at most once.
  const after = await c.call("approval_get", { approvalId: approval.approvalId });
  if (after.status === "pending")
    await c.call("approval_decide", { approvalId: approval.approvalId, decision: "approve" });
  else expect(after.status).toBe("approved");
  const t = await vi.waitFor(
    async () => {
      const t = await c.call("get_task", { taskId });
      expect(["completed", "error"]).toContain(t.status);
      return t;
    },
    { timeout: 20_000 },
  );
  expect(lines(marker).length).toBeLessThanOrEqual(1);
  if (t.status === "completed") expect(lines(marker)).toEqual(["once"]);
  c.proc.kill("SIGTERM");
  await c.exited;
});

test("a timeout that passed while no server ran is decided at the next start (onTimeout), and the run goes on", async () => {
  const marker = join(dir, "marker");
  const { a, taskId, approval } = await pausedTask(marker, { mode: "always", timeout: "2s", onTimeout: "allow" });
  a.proc.kill("SIGKILL");
  await a.exited;
  // The expiry passes while no server runs.
  await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(approval.expiresAt), { timeout: 5000, interval: 100 });

  const b = await startChild();
  await completed(b, taskId);
  expect(await b.call("approval_get", { approvalId: approval.approvalId })).toMatchObject({
    status: "approved",
    decidedBy: "timeout",
  });
  expect(lines(marker)).toEqual(["once"]);
  b.proc.kill("SIGTERM");
  await b.exited;
});
