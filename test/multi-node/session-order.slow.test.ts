/**
 * One session runs one thing at a time across all nodes, in the order its tasks were accepted:
 * 30 run_tasks in 5 sessions sent round-robin to 3 `tsclaw serve` nodes on one PostgreSQL
 * database start one after another per session, each only after the previous one's end is
 * recorded, in acceptance order, whichever node each was sent to. `get_state.queuedRuns`
 * counts what waits on every node, not only on the node asked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { answer, bashThenAnswer, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

const TOKEN = "session-order-shared-token-0123456789";

let pgServer: PgServer;
let fake: FakeResponses;
const nodes: ServeProcess[] = [];

async function ok(server: ServeProcess, op: string, args?: unknown): Promise<any> {
  const r = await server.op(op, args);
  if (!r.body.ok) throw new Error(`${op} on ${server.url}: ${JSON.stringify(r.body.error)}`);
  return r.body.result;
}

beforeAll(async () => {
  pgServer = await startPgServer();
  const db = await createTestDatabase(pgServer.url);
  fake = await startFakeResponses();
  // One after another: three processes starting at once on a loaded machine can miss the start timeout.
  for (let i = 0; i < 3; i++)
    nodes.push(await startServe(db, ["--base-url", fake.url, "--lease", "15s"], { CLAW_TOKEN: TOKEN }));
}, 120_000);

afterAll(async () => {
  for (const s of nodes) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop().catch(() => {});
  await fake?.close();
  await pgServer?.stop();
}, 60_000);

describe("a session across three nodes", () => {
  it("30 run_tasks in 5 sessions, round-robin over 3 nodes: each session's tasks run one after another in the order accepted", async () => {
    fake.setDefault(bashThenAnswer("sleep 0.2", "finished"));
    const sessions = ["s1", "s2", "s3", "s4", "s5"];
    const accepted = new Map<string, string[]>(sessions.map((s) => [s, []]));
    // Sent one after another, so the order each session's tasks were accepted in is known.
    for (let i = 0; i < 30; i++) {
      const s = sessions[i % 5]!;
      const t = await ok(nodes[i % 3]!, "run_task", { prompt: `run ${i}`, sessionKey: `order-${s}` });
      accepted.get(s)!.push(t.taskId);
    }
    for (const ids of accepted.values())
      for (const taskId of ids)
        await expect
          .poll(async () => (await ok(nodes[0]!, "check_task", { taskId, waitMs: 5000 })).isTerminal, {
            timeout: 90_000,
            interval: 10,
          })
          .toBe(true);
    for (const [s, ids] of accepted) {
      const tasks = await Promise.all(ids.map((taskId) => ok(nodes[1]!, "get_task", { taskId })));
      for (const t of tasks) expect(t.status, `${s} ${t.taskId}: ${JSON.stringify(t.error)}`).toBe("completed");
      for (let k = 1; k < tasks.length; k++) {
        const [prev, cur] = [tasks[k - 1]!, tasks[k]!];
        // Accepted after the previous one, it started after the previous one's end was recorded.
        expect(cur.startedAt, `${s}: task ${k} started before task ${k - 1} ended`).toBeGreaterThanOrEqual(
          prev.endedAt,
        );
      }
    }
  }, 180_000);

  it("get_state.queuedRuns counts the session's runs waiting on any node", async () => {
    // The run of "long" sleeps in bash; the others answer at once.
    const long = bashThenAnswer("sleep 3", "finished");
    fake.setDefault((req) => (JSON.stringify(req.body.input).includes("long") ? long : answer("short")));
    const first = await ok(nodes[0]!, "run_task", { prompt: "long", sessionKey: "queued-q" });
    await expect
      .poll(async () => (await ok(nodes[0]!, "get_task", { taskId: first.taskId })).status, { timeout: 20_000 })
      .toBe("in_progress");
    const more = [
      await ok(nodes[1]!, "run_task", { prompt: "second", sessionKey: "queued-q" }),
      await ok(nodes[2]!, "run_task", { prompt: "third", sessionKey: "queued-q" }),
    ];
    for (const n of nodes) {
      const state = await ok(n, "get_state", { sessionKey: "queued-q" });
      expect(state, `${n.url}: ${JSON.stringify(state)}`).toMatchObject({
        isRunning: true,
        currentTaskId: first.taskId,
        queuedRuns: 2,
      });
    }
    for (const t of [first, ...more])
      await expect
        .poll(async () => (await ok(nodes[0]!, "check_task", { taskId: t.taskId, waitMs: 5000 })).isTerminal, {
          timeout: 30_000,
        })
        .toBe(true);
    expect((await ok(nodes[2]!, "get_state", { sessionKey: "queued-q" })).queuedRuns).toBe(0);
  }, 60_000);
});
