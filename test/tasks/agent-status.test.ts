/**
 * An agent reports on its own task from bash through POST /do (CLAW_TASK_ID, CLAW_URL): it may
 * set blocked or needs_human, and the end of its run does not overwrite that.
 */
import { afterEach, expect, test, vi } from "vitest";
import { answer, callBash } from "../fixtures/fake-responses.js";
import { startServer } from "../helpers/server.js";
import { WAIT } from "../helpers/wait.js";
import { fixture, gate, taskClaw } from "./helpers.js";

let fx: Awaited<ReturnType<typeof fixture>>;
afterEach(async () => {
  await fx?.close();
});

/**
 * Bash the fake agent runs: read its task's version, then task_update with `fields` (JSON text)
 * at that version; read again and retry when the task changed in between (its own run's
 * progress, written up to 250 ms after the event it reports, can land between the two calls),
 * as an agent would.
 */
function selfUpdate(fields: string): string {
  const call = (args: string) =>
    `curl -sf "$CLAW_URL/do" -H "Authorization: Bearer $CLAW_TOKEN" -H 'Content-Type: application/json' -d "{\\"op\\":${args}}"`;
  return [
    "for attempt in 1 2 3 4 5 6 7 8 9 10; do",
    `  v=$(${call(`\\"get_task\\",\\"args\\":{\\"taskId\\":\\"$CLAW_TASK_ID\\"}`)} | jq .result.version)`,
    `  if out=$(${call(`\\"task_update\\",\\"args\\":{\\"taskId\\":\\"$CLAW_TASK_ID\\",\\"expectedVersion\\":$v,${fields}}`)}); then`,
    '    echo "$out" | jq -c .result.status',
    "    exit 0",
    "  fi",
    "done",
    "exit 1",
  ].join("\n");
}

test("an agent sets its own task to blocked from bash; check_task returns it as actionable; the run's end keeps it blocked", async () => {
  fx = await fixture();
  const g = gate();
  fx.fake.script(
    callBash({
      script: selfUpdate(`\\"status\\":\\"blocked\\",\\"handoff\\":{\\"blockers\\":\\"need the staging password\\"}`),
    }),
    g.turn,
  );
  const server = fx.track(await startServer(await taskClaw(fx.fake)), (s) => s.close());
  fx.track(g, (x) => x.open());
  const claw = server.claw;
  const r = await claw.task.run({ prompt: "deploy to staging", sessionKey: "deployer" });

  const c = await claw.task.check({ taskId: r.taskId, waitMs: 20_000 });
  expect(c).toMatchObject({ isActionable: true, isTerminal: false, continuePolling: false });
  expect(c.task).toMatchObject({
    status: "blocked",
    phase: "waiting_human",
    handoff: { blockers: "need the staging password" },
  });
  expect(c.nextAction).toMatchObject({ op: "run_task", args: { sessionKey: "deployer" } });
  await g.reached; // the bash call ended, and the run goes on while the task is blocked
  const output = fx.fake.requests[1]!.body.input.find(
    (i: { type: string }) => i.type === "function_call_output",
  ).output;
  expect(JSON.parse(output)).toMatchObject({ exitCode: 0, stdout: '"blocked"\n' });

  g.open("I am blocked: I need the staging password.");
  await vi.waitFor(async () => expect((await claw.task.get({ taskId: r.taskId })).summary).not.toBeNull(), WAIT);
  expect(claw.services.sessions.isRunning(r.sessionId)).toBe(false);
  const after = await claw.task.get({ taskId: r.taskId, include: ["timeline"] });
  expect(after).toMatchObject({
    status: "blocked",
    phase: "waiting_human",
    summary: "I am blocked: I need the staging password.",
    endedAt: null,
  });
  expect(after.timeline!.map((e) => e.text)).toContain("run ended; the task stays blocked");

  // the nextAction resumes the work in the same session
  const resumed = await claw.task.run({
    ...(c.nextAction!.args as { sessionKey: string }),
    prompt: "the password is hunter2",
  });
  expect(resumed.sessionId).toBe(r.sessionId);
  expect((await claw.task.check({ taskId: resumed.taskId, waitMs: 20_000 })).task.status).toBe("completed");
});

test("an agent sets needs_human; the run's end does not overwrite it", async () => {
  fx = await fixture();
  fx.fake.script(
    callBash({
      script: selfUpdate(
        `\\"status\\":\\"needs_human\\",\\"handoff\\":{\\"next\\":\\"a human approves the migration\\"}`,
      ),
    }),
    answer("Waiting for approval."),
  );
  const server = fx.track(await startServer(await taskClaw(fx.fake)), (s) => s.close());
  const claw = server.claw;
  const r = await claw.task.run({ prompt: "migrate the db", sessionKey: "migrator" });
  await vi.waitFor(async () => expect((await claw.task.get({ taskId: r.taskId })).summary).not.toBeNull(), WAIT);
  const t = await claw.task.get({ taskId: r.taskId });
  expect(t).toMatchObject({
    status: "needs_human",
    summary: "Waiting for approval.",
    handoff: { next: "a human approves the migration" },
  });
  const c = await claw.task.check({ taskId: r.taskId, waitMs: 5000 });
  expect(c).toMatchObject({
    isActionable: true,
    waitedMs: 0,
    nextAction: { op: "run_task", args: { sessionKey: "migrator" } },
  });
});

test("an agent may un-block its own task while its run lasts; the run then completes normally", async () => {
  fx = await fixture();
  fx.fake.script(
    callBash({ script: selfUpdate(`\\"status\\":\\"blocked\\",\\"handoff\\":{\\"blockers\\":\\"lock held\\"}`) }),
    callBash({ script: selfUpdate(`\\"status\\":\\"in_progress\\"`) }),
    answer("lock released, all done"),
  );
  const server = fx.track(await startServer(await taskClaw(fx.fake)), (s) => s.close());
  const claw = server.claw;
  const r = await claw.task.run({ prompt: "wait for the lock" });
  await vi.waitFor(async () => expect((await claw.task.get({ taskId: r.taskId })).endedAt).not.toBeNull(), WAIT);
  const t = await claw.task.get({ taskId: r.taskId, include: ["timeline"] });
  expect(t).toMatchObject({ status: "completed", summary: "lock released, all done" });
  const texts = t.timeline!.map((e) => e.text);
  expect(texts).toContain("status in_progress → blocked");
  expect(texts).toContain("status blocked → in_progress");
});

test("a finished run task cannot be set back to in_progress (resume with run_task instead)", async () => {
  fx = await fixture();
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({ prompt: "quick" });
  const done = (await claw.task.check({ taskId: r.taskId, waitMs: 10_000 })).task;
  for (const status of ["in_progress", "todo", "cancelled"] as const) {
    const res = await claw.do({ op: "task_update", args: { taskId: r.taskId, expectedVersion: done.version, status } });
    expect(!res.ok && res.error.code).toBe("invalid_transition");
  }
});
