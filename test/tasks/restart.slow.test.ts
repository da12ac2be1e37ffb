/** Restart recovery: running tasks of a dead (or stopped) process become error/interrupted; queued tasks start. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { type Claw, createClaw } from "../../src/index.js";
import { answer, callBash } from "../fixtures/fake-responses.js";
import { bundle } from "../helpers/bundle.js";
import { tempDir } from "../helpers/claw.js";
import { processAlive, waitProcessGone } from "../helpers/process.js";
import { fixture, readPid } from "./helpers.js";

let fx: Awaited<ReturnType<typeof fixture>>;
afterEach(async () => {
  await fx?.close();
});

function fileClaw(db: string): Claw {
  return createClaw({
    db,
    baseURL: fx.fake.url,
    project: "test",
    validateOutputs: true,
    env: { ...process.env, OPENROUTER_API_KEY: "test-key" },
    modelRetry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20 },
    log: () => {},
  });
}

function expectInterrupted(
  t: {
    status: string;
    phase: string;
    endedAt: number | null;
    error: { code: string; category: string; suggestedRecovery: string } | null;
  },
  sessionKey: string,
) {
  expect(t).toMatchObject({ status: "error", phase: "ended", error: { code: "interrupted", category: "restart" } });
  expect(t.endedAt).not.toBeNull();
  expect(t.error!.suggestedRecovery).toContain("run_task");
  expect(t.error!.suggestedRecovery).toContain(sessionKey);
}

test("closing the claw while a task runs marks it error/interrupted and kills its bash; a reopened claw shows it", async () => {
  fx = await fixture();
  const dir = tempDir();
  const db = join(dir, "claw.db");
  const pidFile = join(dir, "sleep.pid");
  fx.fake.script(callBash({ script: `sleep 60 & echo $! > ${pidFile}; wait` }));
  const first = fileClaw(db);
  const r = await first.task.run({ prompt: "sleep", sessionKey: "graceful" });
  const pid = await readPid(pidFile);
  await first.close();
  expect(await waitProcessGone(pid)).toBe(true);

  const second = fx.track(fileClaw(db), (c) => c.close());
  const t = await second.task.get({ taskId: r.taskId, include: ["timeline"] });
  expectInterrupted(t, "graceful");
  const c = await second.task.check({ taskId: r.taskId, waitMs: 5000 });
  expect(c).toMatchObject({ isTerminal: true, nextAction: null, waitedMs: 0 });
});

test("a task left in_progress by a dead process becomes error/interrupted at start; queued tasks start", async () => {
  fx = await fixture();
  const db = join(tempDir(), "claw.db");
  // The "dead process": rows written as its runner would have left them, but never finished.
  const dead = fileClaw(db);
  await dead.ready(); // its restart recovery is over before the rows below are written
  const session = await dead.services.sessions.ensure({ sessionKey: "orphans" });
  const base = {
    kind: "run" as const,
    body: null,
    sessionKey: session.sessionKey,
    sessionId: session.sessionId,
    project: "test",
    model: session.model,
    provider: session.provider,
    bus: session.bus,
  };
  await dead.services.tasks.store.insert(
    {
      ...base,
      id: "task_was_running",
      title: "was running",
      prompt: "long job",
      status: "in_progress",
      phase: "running_tool",
    },
    "created",
  );
  await dead.services.tasks.store.insert(
    { ...base, id: "task_was_queued", title: "was queued", prompt: "next job", status: "todo", phase: "queued" },
    "created",
  );
  await dead.close(); // its own runner had neither task, so both stay as the crash left them
  expect(dead.services.db.open).toBe(false);

  fx.fake.script(answer("queued job done"));
  const claw = fx.track(fileClaw(db), (c) => c.close());
  expectInterrupted(await claw.task.get({ taskId: "task_was_running" }), "orphans");
  const queued = await claw.task.check({ taskId: "task_was_queued", waitMs: 10_000 });
  expect(queued.task).toMatchObject({ status: "completed", summary: "queued job done" });
});

test("after kill -9 of the serving process, its running task becomes error/interrupted on restart", async () => {
  fx = await fixture();
  const dir = tempDir();
  const db = join(dir, "claw.db");
  const pidFile = join(dir, "sleep.pid");
  fx.fake.script(callBash({ script: `sleep 60 & echo $! > ${pidFile}; wait` }));
  const crashChild = await bundle(join(import.meta.dirname, "crash-child.ts"));
  const child = spawn(process.execPath, [crashChild, db, fx.fake.url, pidFile], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (c: Buffer) => {
      buf += c.toString();
      if (buf.includes("\n")) resolve(buf.split("\n")[0]!);
    });
    child.on("exit", (code) => reject(new Error(`child exited early with ${code}`)));
  });
  const { taskId } = JSON.parse(line) as { taskId: string };
  const sleepPid = await readPid(pidFile);
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  // The crashed process could not clean up its bash; do it here so nothing outlives the test.
  try {
    process.kill(sleepPid, "SIGKILL");
  } catch {
    // already gone
  }
  await waitProcessGone(sleepPid);

  const claw = fx.track(fileClaw(db), (c) => c.close());
  expectInterrupted(await claw.task.get({ taskId }), "crashy");
  expect(processAlive(child.pid!)).toBe(false);
}, 60_000);
