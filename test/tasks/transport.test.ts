/** Every task operation through POST /do gives what the typed API gives; a client that disconnects abandons only its wait. */
import { request } from "node:http";
import { afterEach, expect, test, vi } from "vitest";
import { startServer } from "../helpers/server.js";
import { WAIT } from "../helpers/wait.js";
import { completion, fixture, gate, taskClaw } from "./helpers.js";

let fx: Awaited<ReturnType<typeof fixture>>;
afterEach(async () => {
  await fx?.close();
});

const strip = <T extends Record<string, unknown>>(t: T) => ({ ...t, elapsedMs: 0 });

test("run_task, check_task, get_task, task_get, list_tasks, cancel_task, task_create, task_update, task_telemetry over /do", async () => {
  fx = await fixture();
  const server = fx.track(await startServer(await taskClaw(fx.fake)), (s) => s.close());
  const claw = server.claw;

  const run = await server.op("run_task", { prompt: "hello over http", sessionKey: "http" });
  expect(run).toMatchObject({
    ok: true,
    id: 1,
    result: { status: "todo", continuePolling: true, nextAction: { op: "check_task" } },
  });
  const taskId = run.result.taskId as string;
  const checked = await server.op("check_task", { taskId, waitMs: 10_000 });
  expect(checked.result).toMatchObject({
    isTerminal: true,
    nextAction: null,
    pollNumber: 1,
    task: { status: "completed", summary: "ok" },
  });
  const viaHttp = await server.op("get_task", { taskId, include: ["timeline", "receipts", "prompt"] });
  const viaApi = await claw.task.get({ taskId, include: ["timeline", "receipts", "prompt"] });
  expect(strip(viaHttp.result)).toEqual(strip(viaApi));
  expect((await server.op("task_get", { jobId: taskId })).result.taskId).toBe(taskId);

  const created = await server.op("task_create", { title: "over http", idempotencyKey: "h1" });
  expect(created.result).toMatchObject({ status: "todo", version: 1, kind: "work", replayed: false });
  const done = await server.op("task_update", completion(claw, created.result));
  expect(done.result).toMatchObject({ status: "done", version: 2, replayed: false });
  const conflict = await server.post({
    op: "task_update",
    args: { taskId: created.result.taskId, expectedVersion: 1, title: "stale" },
  });
  expect(conflict.status).toBe(409);
  expect(conflict.body.error).toMatchObject({ code: "version_conflict", details: { currentVersion: 2 } });
  const fresh = await claw.task.create({ title: "no handoff" });
  const missing = await server.post({ op: "task_update", args: { ...completion(claw, fresh), handoff: undefined } });
  expect(missing.status).toBe(422);
  expect(missing.body.error.code).toBe("completion_handoff_required");

  const list = await server.op("list_tasks", { limit: 10 });
  expect(list.result.tasks).toHaveLength(3);
  expect(list.result.counts).toMatchObject({ completed: 1, done: 1 });
  const cancel = await server.op("cancel_task", { taskId });
  expect(cancel.result.status).toBe("completed");
  const tele = await server.op("task_telemetry", { taskId });
  expect(tele.result.records.length).toBeGreaterThanOrEqual(3);

  const bad = await server.post({ op: "check_task", args: { taskId, waitMs: "forever" } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.code).toBe("invalid_args");
});

test("an HTTP client that disconnects during check_task abandons its wait; the task keeps running", async () => {
  fx = await fixture();
  const g = gate();
  fx.fake.script(g.turn);
  const server = fx.track(await startServer(await taskClaw(fx.fake)), (s) => s.close());
  fx.track(g, (x) => x.open());
  const claw = server.claw;
  const r = await claw.task.run({ prompt: "slow", sessionKey: "gone" });
  await g.reached;
  // a raw socket-level client, so "going away" is exactly a closed connection
  const body = JSON.stringify({ op: "check_task", args: { taskId: r.taskId, waitMs: 60_000 } });
  const req = request(`${server.url}/do`, {
    method: "POST",
    agent: false,
    headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...server.auth },
  });
  req.on("error", () => {});
  req.end(body);
  await vi.waitFor(() => expect(claw.services.tasks.notifier.size).toBe(1), WAIT);
  req.destroy();
  await vi.waitFor(() => expect(claw.services.tasks.notifier.size).toBe(0), WAIT);
  expect((await claw.task.get({ taskId: r.taskId })).status).toBe("in_progress");
  const [rec] = (await claw.task.telemetry({ taskId: r.taskId, op: "check_task" })).records;
  expect(rec).toMatchObject({ waitAskedMs: 60_000, status: "in_progress" });
  expect(rec!.waitedMs!).toBeLessThan(60_000);
  g.open("finished anyway");
  expect((await claw.task.check({ taskId: r.taskId, waitMs: 10_000 })).task.summary).toBe("finished anyway");
});
