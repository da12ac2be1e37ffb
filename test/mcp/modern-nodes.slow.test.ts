/**
 * The tasks extension on PostgreSQL with two nodes: a task created over MCP through node A is
 * read, followed (subscriptions/listen) and cancelled through node B, and A sees it cancelled.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { bashThenAnswer, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";
import { listenTasks, raw } from "./modern-raw.js";

const TOKEN = "mcp-nodes-token-0123456789";
let pg: PgServer;
let fake: FakeResponses;
let nodes: ServeProcess[] = [];
beforeAll(async () => {
  pg = await startPgServer();
  const db = await createTestDatabase(pg.url);
  fake = await startFakeResponses();
  nodes = await Promise.all(
    [0, 1].map(() => startServe(db, ["--base-url", fake.url, "--token", TOKEN], { OPENROUTER_API_KEY: "test-key" })),
  );
}, 120_000);
afterAll(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
  await fake?.close();
  await pg?.stop();
}, 60_000);

it("reads, follows and cancels through node B a task created through node A", async () => {
  const [a, b] = nodes as [ServeProcess, ServeProcess];
  fake.script(bashThenAnswer("sleep 60", "never"));
  const created = (await raw(a.url, TOKEN, "tools/call", { name: "run_task", arguments: { prompt: "long" } })).body
    .result;
  expect(created.resultType).toBe("task");
  // stored before the handle was answered: the other node resolves it at once
  expect((await raw(b.url, TOKEN, "tasks/get", { taskId: created.taskId })).body.result.taskId).toBe(created.taskId);
  const listen = await listenTasks(b.url, TOKEN, [created.taskId]);
  expect((await listen.next()).params.notifications.taskIds).toEqual([created.taskId]);
  await vi.waitFor(
    async () => {
      const t = (await raw(b.url, TOKEN, "tasks/get", { taskId: created.taskId })).body.result;
      expect(t.statusMessage ?? t.status).toBeTruthy();
      expect(fake.requests.length).toBeGreaterThan(0); // the run is under way on A
    },
    { timeout: 20_000, interval: 100 },
  );
  const ack = await raw(b.url, TOKEN, "tasks/cancel", { taskId: created.taskId });
  expect(ack.status).toBe(200);
  // B pushes the change made by A's run (from the tasks bus), ending in cancelled
  await vi.waitFor(
    async () => {
      const n = await listen.next();
      expect(n.params.status).toBe("cancelled");
    },
    { timeout: 30_000, interval: 10 },
  );
  listen.close();
  expect((await raw(a.url, TOKEN, "tasks/get", { taskId: created.taskId })).body.result.status).toBe("cancelled");
}, 120_000);
