/**
 * On PostgreSQL a run's stored message also answers, in the same statement, what its inbox and
 * its kept context would each have cost a statement to ask (session-store.ts): whether steering
 * and follow-up messages wait, and which messages others stored since the context was read. The
 * fence still holds: without the session's lease nothing is written, whatever else the
 * statement would have returned.
 */
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import type { SessionStore } from "../../src/agent/session-store.js";
import { type Claw, createClaw } from "../../src/index.js";
import { createTestDatabase, dropTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

let server: PgServer;
let url: string;
let claw: Claw;
let store: SessionStore;

beforeAll(async () => {
  server = await startPgServer();
  url = await createTestDatabase(server.url);
  claw = createClaw({ db: url, project: "folds", provider: "demo" });
  await claw.ready();
  store = claw.services.sessions.store;
}, 60_000);

afterAll(async () => {
  await claw?.close();
  if (url) await dropTestDatabase(url);
  await server?.stop();
});

/** Gives this node the session's lease (as a run holds it), for `ms`. */
async function lease(sessionId: string, ms: number): Promise<void> {
  await store.sql.run(
    "INSERT INTO session_leases (session_id, node, expires_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at",
    [sessionId, store.node, Date.now() + ms],
  );
}

test("a run's first message comes back with the messages others stored since its context, in order, and what waits", async () => {
  const { sessionId } = await claw.session.start({ sessionKey: "catch-up" });
  await lease(sessionId, 60_000);
  const seen = await store.append(sessionId, { runId: null, role: "user", text: "kept" });
  const other1 = await store.append(sessionId, { runId: null, role: "user", text: "from elsewhere 1" });
  const other2 = await store.append(sessionId, { runId: null, role: "user", text: "from elsewhere 2" });
  await store.queue.add(sessionId, "follow_up", "later");
  const r = await store.appendCatchingUp(sessionId, { runId: "run_1", role: "user", text: "go" }, seen.seq);
  expect(r.message).toMatchObject({ text: "go", runId: "run_1", seq: other2.seq + 1 });
  expect(r.newer?.map((m) => [m.seq, m.text])).toEqual([
    [other1.seq, "from elsewhere 1"],
    [other2.seq, "from elsewhere 2"],
  ]);
  expect(r.waiting).toEqual({ steering: false, followUp: true });
  // Nothing new since the message itself: nothing comes back beside it.
  const again = await store.appendCatchingUp(sessionId, { runId: "run_1", role: "user", text: "more" }, r.message.seq);
  expect(again.newer).toEqual([]);
  expect(again.message.seq).toBe(r.message.seq + 1);
});

test("without the session's lease the first message is refused (lease_lost) even though newer messages exist", async () => {
  const { sessionId } = await claw.session.start({ sessionKey: "fenced" });
  await store.append(sessionId, { runId: null, role: "user", text: "one" });
  await store.append(sessionId, { runId: null, role: "user", text: "two" });
  await lease(sessionId, -1_000); // lapsed
  await expect(
    store.appendCatchingUp(sessionId, { runId: "run_2", role: "user", text: "late" }, 0),
  ).rejects.toMatchObject({ code: "lease_lost" });
  expect((await store.allMessages(sessionId)).map((m) => m.text)).toEqual(["one", "two"]);
});

test("a steer waiting is seen by the append that follows it", async () => {
  const { sessionId } = await claw.session.start({ sessionKey: "steered" });
  await lease(sessionId, 60_000);
  const before = await store.appendWatched(sessionId, { runId: "run_3", role: "user", text: "start" });
  expect(before.waiting).toEqual({ steering: false, followUp: false });
  await store.queue.add(sessionId, "steer", "turn left");
  const after = await store.appendWatched(sessionId, {
    runId: "run_3",
    role: "tool_result",
    callId: "c1",
    name: "bash",
    result: {},
  });
  expect(after.waiting).toEqual({ steering: true, followUp: false });
});

test("run messages of several sessions at once go together: each at its own seq, fenced by its own lease, with its own queue", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const { sessionId } = await claw.session.start({ sessionKey: `together-${i}` });
    await store.append(sessionId, { runId: null, role: "user", text: `first of ${i}` });
    ids.push(sessionId);
  }
  const [leased, steered, twice, unleased] = ids as [string, string, string, string];
  for (const id of [leased, steered, twice]) await lease(id, 60_000);
  await lease(unleased, -1_000); // lapsed: its message is refused, and only its
  await store.queue.add(steered, "steer", "turn left");
  const statements = vi.spyOn(store.sql, "all");
  const results = await Promise.allSettled([
    store.appendWatched(leased, { runId: "run_t", role: "assistant", text: "a" }),
    store.appendWatched(steered, { runId: "run_t", role: "assistant", text: "b" }),
    store.appendWatched(twice, { runId: "run_t", role: "assistant", text: "c1" }),
    store.appendWatched(twice, { runId: "run_t", role: "assistant", text: "c2" }),
    store.appendWatched(unleased, { runId: "run_t", role: "assistant", text: "d" }),
    store.appendWatched(leased, { runId: "run_t", role: "assistant", text: "a2" }),
  ]);
  // The first went alone; the rest came while it was on its way, and went in one statement
  // (a session's second message in the next).
  expect(statements.mock.calls.some(([text]) => text.includes("json_to_recordset"))).toBe(true);
  statements.mockRestore();
  expect(results.map((r) => r.status)).toEqual([
    "fulfilled",
    "fulfilled",
    "fulfilled",
    "fulfilled",
    "rejected",
    "fulfilled",
  ]);
  expect((results[4] as PromiseRejectedResult).reason).toMatchObject({ code: "lease_lost" });
  const value = (i: number) =>
    (results[i] as PromiseFulfilledResult<Awaited<ReturnType<SessionStore["appendWatched"]>>>).value;
  expect(value(0).waiting).toEqual({ steering: false, followUp: false });
  expect(value(1).waiting).toEqual({ steering: true, followUp: false });
  const texts = async (id: string) => (await store.allMessages(id)).map((m) => [m.seq, m.text]);
  expect(await texts(leased)).toEqual([
    [1, "first of 0"],
    [2, "a"],
    [3, "a2"],
  ]);
  expect(await texts(steered)).toEqual([
    [1, "first of 1"],
    [2, "b"],
  ]);
  expect(await texts(twice)).toEqual([
    [1, "first of 2"],
    [2, "c1"],
    [3, "c2"],
  ]);
  expect(await texts(unleased)).toEqual([[1, "first of 3"]]);
  expect(value(2).message.seq).toBe(2);
  expect(value(3).message.seq).toBe(3);
});

test("first messages of several runs at once go together, each with the messages others stored in its own session since its context", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { sessionId } = await claw.session.start({ sessionKey: `catching-up-${i}` });
    await lease(sessionId, 60_000);
    ids.push(sessionId);
  }
  const [x, y, z] = ids as [string, string, string];
  const kept = await store.append(x, { runId: null, role: "user", text: "x kept" });
  await store.append(x, { runId: null, role: "user", text: "x since 1" });
  await store.append(x, { runId: null, role: "user", text: "x since 2" });
  const keptY = await store.append(y, { runId: null, role: "user", text: "y kept" });
  await store.append(z, { runId: null, role: "user", text: "z other" });
  await store.queue.add(y, "follow_up", "then this");
  const statements = vi.spyOn(store.sql, "all");
  const [first, rx, ry, rz] = await Promise.all([
    store.appendWatched(z, { runId: "run_z", role: "assistant", text: "z first, alone" }),
    store.appendCatchingUp(x, { runId: "run_x", role: "user", text: "x go" }, kept.seq),
    store.appendCatchingUp(y, { runId: "run_y", role: "user", text: "y go" }, keptY.seq),
    store.appendWatched(z, { runId: "run_z", role: "assistant", text: "z again" }),
  ]);
  expect(statements.mock.calls.some(([text]) => text.includes("json_to_recordset"))).toBe(true);
  statements.mockRestore();
  expect(first.message.seq).toBe(2);
  expect(rx.message).toMatchObject({ text: "x go", seq: 4 });
  expect(rx.newer?.map((m) => m.text)).toEqual(["x since 1", "x since 2"]);
  expect(ry.message).toMatchObject({ text: "y go", seq: 2 });
  expect(ry.newer).toEqual([]);
  expect(ry.waiting).toEqual({ steering: false, followUp: true });
  // A watched append asks for no catch-up.
  expect((rz as { newer?: unknown }).newer).toBeUndefined();
  expect(rz.message).toMatchObject({ text: "z again", seq: 3 });
});

test("a message the batch's statement chokes on fails alone: the others are stored once", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const { sessionId } = await claw.session.start({ sessionKey: `choked-${i}` });
    await lease(sessionId, 60_000);
    ids.push(sessionId);
  }
  const [p, q] = ids as [string, string];
  const results = await Promise.allSettled([
    store.appendWatched(p, { runId: null, role: "assistant", text: "alone first" }),
    store.appendWatched(q, { runId: null, role: "assistant", text: "q kept" }),
    // No such session: the messages' foreign key refuses it, and with it the whole statement.
    store.appendWatched("ses_missing", { runId: null, role: "assistant", text: "refused" }),
    store.appendWatched(p, { runId: null, role: "assistant", text: "p kept" }),
  ]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
  expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: "23503" });
  expect((await store.allMessages(q)).map((m) => m.text)).toEqual(["q kept"]);
  expect((await store.allMessages(p)).map((m) => m.text)).toEqual(["alone first", "p kept"]);
});
