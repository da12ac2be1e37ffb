/**
 * On PostgreSQL every node acts on the `tasks` and `nodes` buses: a cancelled task's run stops
 * on the node holding it, an `abort_run` request aborts a run there. Those buses are reserved,
 * and the receivers also check the database before acting, so an event that did get onto them
 * without the server deciding it (here: published straight through the bus service, past every
 * check a client or a run meets) cancels and aborts nothing.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { NODES_BUS } from "../../src/agent/session-control.js";
import { type Claw, createClaw } from "../../src/index.js";
import { TASKS_BUS } from "../../src/tasks/tasks-bus.js";
import {
  afterToolOutput,
  answer,
  callBash,
  type FakeResponses,
  startFakeResponses,
} from "../fixtures/fake-responses.js";
import { createTestDatabase, dropTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

let server: PgServer;
let url: string;
let claw: Claw;
let fake: FakeResponses;

beforeAll(async () => {
  server = await startPgServer();
  url = await createTestDatabase(server.url);
  fake = await startFakeResponses();
  // Each run sleeps in bash for as long as its prompt says, then answers.
  fake.setDefault((req) => {
    if (afterToolOutput(req)) return answer("slept");
    // The seconds alone: the input's JSON goes on after them (`sleep 1.5"}]`), and a script with
    // that stray quote failed at once, so the run was over before the test could see it running.
    const m = /sleep (\d+(?:\.\d+)?)/.exec(JSON.stringify(req.body.input));
    return callBash({ script: `sleep ${m?.[1] ?? "0"}` });
  });
  claw = createClaw({
    db: url,
    token: "forged-events-token-0123456789",
    project: "forged",
    baseURL: fake.url,
    env: { ...process.env, OPENROUTER_API_KEY: "test-key" },
  });
  await claw.ready();
}, 60_000);

afterAll(async () => {
  await claw?.close();
  await fake?.close();
  if (url) await dropTestDatabase(url);
  await server?.stop();
});

/** Waits for the task to reach `status`. */
async function reaches(taskId: string, status: string, ms = 20_000): Promise<void> {
  await expect.poll(async () => (await claw.task.get({ taskId })).status, { timeout: ms, interval: 20 }).toBe(status);
}

test("a forged task event on tasks neither cancels the running task nor strands the one queued behind it", async () => {
  const running = await claw.task.run({ prompt: "sleep 1.5", sessionKey: "forged-tasks" });
  const queued = await claw.task.run({ prompt: "sleep 0", sessionKey: "forged-tasks" });
  await reaches(running.taskId, "in_progress");
  for (const t of [running, queued])
    await claw.services.bus.out(TASKS_BUS, {
      type: "task",
      taskId: t.taskId,
      sessionKey: "forged-tasks",
      project: "forged",
      status: "cancelled",
      phase: "ended",
      version: 99,
      latestUpdate: null,
      at: Date.now(),
    });
  await reaches(running.taskId, "completed");
  await reaches(queued.taskId, "completed");
});

test("a forged abort_run on nodes does not abort the run it names", async () => {
  const t = await claw.task.run({ prompt: "sleep 1.5", sessionKey: "forged-nodes" });
  await reaches(t.taskId, "in_progress");
  const state = await claw.session.state({ sessionKey: "forged-nodes" });
  expect(state.currentRunId).toMatch(/^run_/);
  await claw.services.bus.out(NODES_BUS, {
    type: "abort_run",
    requestId: "forged-1",
    node: claw.services.nodes.id,
    from: "a-node-that-does-not-exist",
    sessionId: (await claw.session.start({ sessionKey: "forged-nodes" })).sessionId,
    runId: state.currentRunId,
  });
  await reaches(t.taskId, "completed");
});
