/**
 * Approvals on several PostgreSQL nodes (`tsclaw serve` processes on one database): a run paused
 * on an approval on node A, A killed -9, the approval decided on B and C at the same moment:
 * the task is not lost with A's lease, one decision wins (the other is a replay), and exactly one
 * node resumes the run: the command runs once and the task completes. Decided while the killed
 * node still counts as alive, the run is resumed once its lease lapses, by the node that notices.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { answer, callBash, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

const TOKEN = "approval-nodes-shared-token-0123456789";
const LEASE = "2s";

let pgServer: PgServer;
let db: string;
let fake: FakeResponses;
const nodes: ServeProcess[] = [];

beforeAll(async () => {
  pgServer = await startPgServer();
  db = await createTestDatabase(pgServer.url);
  fake = await startFakeResponses();
  nodes.push(
    ...(await Promise.all(
      [0, 1, 2].map(() => startServe(db, ["--base-url", fake.url, "--lease", LEASE], { CLAW_TOKEN: TOKEN })),
    )),
  );
}, 120_000);

afterAll(async () => {
  for (const s of nodes) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop().catch(() => {});
  await fake?.close();
  await pgServer?.stop();
}, 60_000);

async function ok(server: ServeProcess, op: string, args?: unknown): Promise<any> {
  const r = await server.op(op, args);
  if (!r.body.ok)
    throw new Error(`${op} on ${server.url}: ${JSON.stringify(r.body.error)}\n${server.stderr().slice(-3000)}`);
  return r.body.result;
}

test("requested on A, A killed -9, decided on B and C at once: resumed on one node, the command runs once", async () => {
  const [a, b, c] = nodes as [ServeProcess, ServeProcess, ServeProcess];
  const marker = join(tempDir(), "marker");
  fake.script(callBash({ script: `echo once >> ${marker}` }), answer("done on another node"));
  const { taskId } = await ok(a, "run_task", { prompt: "go", sessionKey: "nodes", approval: { mode: "always" } });
  const approval = await vi.waitFor(
    async () => {
      const [p] = (await ok(b, "approval_list", { status: "pending" })).approvals;
      expect(p).toBeDefined();
      return p;
    },
    { timeout: 15_000 },
  );
  await vi.waitFor(async () =>
    expect(await ok(b, "get_task", { taskId })).toMatchObject({ status: "needs_human", phase: "awaiting_approval" }),
  );
  await a.kill9();

  // A's lease lapses: its paused task is not lost, its approval still pending.
  await vi.waitFor(async () => expect((await ok(b, "list_nodes")).nodes.filter((n: any) => n.alive)).toHaveLength(2), {
    timeout: 15_000,
    interval: 200,
  });
  expect(await ok(c, "get_task", { taskId })).toMatchObject({ status: "needs_human", phase: "awaiting_approval" });
  expect(await ok(c, "approval_get", { approvalId: approval.approvalId })).toMatchObject({ status: "pending" });

  const decisions = await Promise.all(
    [b, c].map((n) => ok(n, "approval_decide", { approvalId: approval.approvalId, decision: "approve" })),
  );
  expect(decisions.filter((d) => d.replayed).length).toBe(1);
  const done = await vi.waitFor(
    async () => {
      const t = await ok(b, "get_task", { taskId });
      expect(t.status).toBe("completed");
      return t;
    },
    { timeout: 20_000, interval: 200 },
  );
  expect(done.summary).toBe("done on another node");
  expect(existsSync(marker) && readFileSync(marker, "utf8")).toBe("once\n");
  // One resumer: the model was asked once more after the approval, not twice.
  expect(fake.requests).toHaveLength(2);
});

test("decided while the killed node's lease still runs: a live node resumes the run once it lapses", async () => {
  const [, b, c] = nodes as [ServeProcess, ServeProcess, ServeProcess];
  const d = await startServe(db, ["--base-url", fake.url, "--lease", LEASE], { CLAW_TOKEN: TOKEN });
  nodes.push(d);
  const marker = join(tempDir(), "marker");
  const before = fake.requests.length;
  fake.script(callBash({ script: `echo once >> ${marker}` }), answer("resumed after the lease"));
  const { taskId } = await ok(d, "run_task", { prompt: "go", sessionKey: "lapse", approval: { mode: "always" } });
  await vi.waitFor(
    async () =>
      expect(await ok(b, "get_task", { taskId })).toMatchObject({ status: "needs_human", phase: "awaiting_approval" }),
    { timeout: 15_000 },
  );
  const [approval] = (await ok(b, "approval_list", { status: "pending", taskId })).approvals;
  await d.kill9();
  await ok(c, "approval_decide", { approvalId: approval.approvalId, decision: "approve" });
  const done = await vi.waitFor(
    async () => {
      const t = await ok(b, "get_task", { taskId });
      expect(t.status).toBe("completed");
      return t;
    },
    { timeout: 20_000, interval: 200 },
  );
  expect(done.summary).toBe("resumed after the lease");
  expect(readFileSync(marker, "utf8")).toBe("once\n");
  expect(fake.requests.length - before).toBe(2);
});
