/** Request telemetry of the task operations: what each record holds, and never the prompt. */
import { afterEach, expect, test } from "vitest";
import { fixture, taskClaw } from "./helpers.js";

let fx: Awaited<ReturnType<typeof fixture>>;
afterEach(async () => {
  await fx?.close();
});

test("each task request is recorded: op, task, poll number, wait asked/waited, status, duration, duplicate, terminal retrieval, error", async () => {
  fx = await fixture();
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({
    prompt: "SECRET-PROMPT-TEXT count the files",
    sessionKey: "tele",
    idempotencyKey: "t1",
  });
  await claw.task.run({ prompt: "SECRET-PROMPT-TEXT count the files", sessionKey: "tele", idempotencyKey: "t1" });
  await claw.task.check({ taskId: r.taskId, waitMs: 10_000 });
  await claw.task.check({ taskId: r.taskId, waitMs: 5_000 });
  await claw.task.get({ taskId: r.taskId });
  await claw.do({ op: "check_task", args: { taskId: "task_unknown", waitMs: 10 } });

  const { records } = await claw.task.telemetry({ taskId: r.taskId });
  expect(records.map((x) => x.op)).toEqual([
    "get_task",
    "check_task",
    "check_task",
    "task_run",
    "run_task",
    "run_task",
  ]);
  const [get, poll2, poll1, run, replay, create] = records;
  // The run itself, with the usage the provider reported (the fake's: 10 in, 5 out).
  expect(run).toMatchObject({
    status: "completed",
    errorCode: null,
    usage: { input: 10, output: 5, total: 15, cachedInput: 0, reasoning: 0, cost: null },
  });
  expect(create!.usage).toBeNull();
  expect(create).toMatchObject({ duplicate: false, status: "todo", terminalRetrieval: false, errorCode: null });
  expect(replay).toMatchObject({ duplicate: true });
  expect(poll1).toMatchObject({ pollNumber: 1, waitAskedMs: 10_000, status: "completed", terminalRetrieval: true });
  expect(poll2).toMatchObject({
    pollNumber: 2,
    waitAskedMs: 5_000,
    waitedMs: 0,
    status: "completed",
    terminalRetrieval: true,
  });
  expect(get).toMatchObject({ pollNumber: null, status: "completed" });
  for (const rec of records) {
    expect(rec.durationMs).toBeGreaterThanOrEqual(0);
    expect(rec.ts).toBeGreaterThan(0);
  }
  const failed = (await claw.task.telemetry({ taskId: "task_unknown" })).records;
  expect(failed).toEqual([expect.objectContaining({ op: "check_task", errorCode: "not_found" })]);

  const everything = JSON.stringify(await claw.services.sql.all("SELECT * FROM telemetry"));
  expect(everything).not.toContain("SECRET-PROMPT-TEXT");
  expect((await claw.task.telemetry({ op: "run_task", limit: 1 })).records).toHaveLength(1);
});

test("with CLAW_TELEMETRY_LOG=1 each record is also a JSON line in the log (never the prompt)", async () => {
  fx = await fixture();
  const lines: string[] = [];
  const claw = fx.track(
    await taskClaw(fx.fake, {
      env: { ...process.env, OPENROUTER_API_KEY: "k", CLAW_TELEMETRY_LOG: "1" },
      log: (l) => lines.push(l),
    }),
    (c) => c.close(),
  );
  const t = await claw.task.create({ title: "logged" });
  const r = await claw.task.run({ prompt: "SECRET-PROMPT-TEXT" });
  await claw.task.check({ taskId: r.taskId, waitMs: 10_000 });
  const records = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(records.map((x) => x.op)).toEqual(["task_create", "run_task", "task_run", "check_task"]);
  expect(records[0]).toMatchObject({ telemetry: true, taskId: t.taskId, status: "todo", duplicate: false });
  expect(lines.join("\n")).not.toContain("SECRET-PROMPT-TEXT");
});
