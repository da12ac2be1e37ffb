/**
 * Statements a run task saves on PostgreSQL. run_task into an existing session reads the session
 * in the task's insert. A task's run leaves its row's end to the task's end: one statement ends
 * the task, gives the session's lease back and ends the run row; when the task's end writes
 * nothing (the task was cancelled meanwhile), the run row is still ended, alone.
 */
import { expect, test, vi } from "vitest";
import { useRecordedPgClaw } from "../helpers/pg-statements.js";
import { WAIT } from "../helpers/wait.js";

const recorded = useRecordedPgClaw({ project: "run-end", provider: "demo", env: { PATH: process.env.PATH } });
const sent = recorded.sent;

type RunRow = { status: string; turns: number; tool_calls: number; ended_at: string | null; error: string | null };

async function runsOfTask(taskId: string): Promise<RunRow[]> {
  return recorded.claw.services.sessions.store.sql.all<RunRow>(
    "SELECT status, turns, tool_calls, ended_at, error FROM runs WHERE task_id = ?",
    [taskId],
  );
}

test("a completed task's run row is ended by the statement that ends the task and gives the lease back", async () => {
  sent.length = 0;
  const { taskId } = await recorded.claw.task.run({ prompt: "run `echo carried`", sessionKey: "carried" });
  const done = await recorded.claw.task.check({ taskId, waitMs: 20_000 });
  expect(done.task.status).toBe("completed");
  const [run] = await runsOfTask(taskId);
  expect(run).toMatchObject({ status: "completed", turns: 2, tool_calls: 1, error: null });
  expect(run!.ended_at).not.toBeNull();
  const ends = sent.filter((t) => t.includes("UPDATE runs SET status"));
  expect(ends).toHaveLength(1);
  expect(ends[0]).toMatch(/^WITH released AS \(DELETE FROM session_leases .*run_end AS \(UPDATE runs SET status/);
  expect(ends[0]).toContain("UPDATE tasks SET status");
  // The session's next task starts only after that end: it sees the lease free and the row ended.
  const next = await recorded.claw.task.run({ prompt: "run `echo again`", sessionKey: "carried" });
  expect((await recorded.claw.task.check({ taskId: next.taskId, waitMs: 20_000 })).task.status).toBe("completed");
  expect((await runsOfTask(next.taskId))[0]?.status).toBe("completed");
  const stats = await recorded.claw.session.stats({ sessionKey: "carried" });
  expect(stats.runs).toBe(2);
});

test("a task cancelled while its run goes on: its end writes nothing, and the run row is ended alone", async () => {
  const { taskId } = await recorded.claw.task.run({ prompt: "run `sleep 30`", sessionKey: "cancelled" });
  await vi.waitFor(async () => expect((await recorded.claw.task.get({ taskId })).phase).toBe("running_tool"), WAIT);
  sent.length = 0;
  await recorded.claw.task.cancel({ taskId });
  await vi.waitFor(async () => expect((await runsOfTask(taskId))[0]?.status).toBe("cancelled"), WAIT);
  const [run] = await runsOfTask(taskId);
  expect(run!.ended_at).not.toBeNull();
  expect(sent.filter((t) => t.startsWith("UPDATE runs SET status"))).toHaveLength(1);
  expect((await recorded.claw.task.get({ taskId })).status).toBe("cancelled");
  // The lease was given back: the session takes its next task.
  const next = await recorded.claw.task.run({ prompt: "run `echo next`", sessionKey: "cancelled" });
  expect((await recorded.claw.task.check({ taskId: next.taskId, waitMs: 20_000 })).task.status).toBe("completed");
});

test("run_task into an existing session reads it in the task's insert; a session that cannot run here goes the long way and says why", async () => {
  const first = await recorded.claw.task.run({ prompt: "run `true`", sessionKey: "folded" });
  await recorded.claw.task.check({ taskId: first.taskId, waitMs: 20_000 });
  sent.length = 0;
  const second = await recorded.claw.task.run({ prompt: "run `echo two`", sessionKey: "folded", title: "second" });
  expect(second).toMatchObject({ sessionId: first.sessionId, sessionKey: "folded", status: "todo", version: 1 });
  const created = sent.filter((t) => /^(SELECT|INSERT|WITH)/.test(t) && /sessions|INSERT INTO tasks/.test(t));
  expect(created).toHaveLength(1);
  expect(created[0]).toMatch(
    /^WITH s AS \(SELECT .* FROM sessions WHERE key = \$1\), t AS \(INSERT INTO tasks .* FROM s WHERE s.provider IN /,
  );
  const t = await recorded.claw.task.get({ taskId: second.taskId });
  expect(t).toMatchObject({ title: "second", sessionKey: "folded", sessionId: first.sessionId, project: "run-end" });
  const columns = (id: string) =>
    recorded.claw.services.sessions.store.sql.get(
      "SELECT session_key, session_id, model, provider, bus FROM tasks WHERE id = ?",
      [id],
    );
  expect(await columns(second.taskId)).toEqual(await columns(first.taskId));
  expect(await columns(second.taskId)).toMatchObject({ model: "demo", provider: "demo" });
  expect((await recorded.claw.task.check({ taskId: second.taskId, waitMs: 20_000 })).task.summary).toContain("two");
  // A session of a provider without a key here: not found by the fold, so the long way tells why.
  await recorded.claw.services.sessions.store.sql.run("UPDATE sessions SET provider = ? WHERE key = ?", [
    "openai",
    "folded",
  ]);
  const refused = await recorded.claw.do({ op: "run_task", args: { prompt: "x", sessionKey: "folded" } });
  expect(!refused.ok && refused.error.code).toBe("provider_auth_missing");
  // A new key: the fold finds no session, which is then made without looking for it again.
  sent.length = 0;
  const fresh = await recorded.claw.task.run({ prompt: "run `true`", sessionKey: "fresh" });
  expect(fresh.sessionId).not.toBe(first.sessionId);
  expect(sent.filter((t) => /^(SELECT|INSERT|WITH)/.test(t) && /sessions|INSERT INTO tasks/.test(t))).toEqual([
    expect.stringMatching(/^WITH s AS \(SELECT .* FROM sessions WHERE key = \$1\), t AS \(INSERT INTO tasks/),
    expect.stringMatching(/^INSERT INTO sessions/),
    expect.stringMatching(/^INSERT INTO tasks/),
  ]);
  expect((await recorded.claw.task.check({ taskId: fresh.taskId, waitMs: 20_000 })).task.status).toBe("completed");
});
