/**
 * The PostgreSQL EventStore against a real server, with several "nodes" (each its own pool,
 * store and BusService) on one database: concurrent writers get contiguous unique seqs, a
 * subscriber on one node sees every node's events in order with no gap or duplicate (also
 * after its LISTEN connection is killed), payload text comes back byte for byte, and pages keep
 * their byte budget.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { BusService } from "../../src/bus/bus-service.js";
import type { EventStore, StoredEvent } from "../../src/bus/event-store.js";
import { type OpenedPg, openPg } from "../../src/store/pg/open-pg.js";
import { createPgEventStore } from "../../src/store/pg/pg-event-store.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";
import { WAIT } from "../helpers/wait.js";

let server: PgServer;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startPgServer();
}, 120_000);

afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

afterAll(async () => {
  await server?.stop();
});

interface Node {
  db: OpenedPg;
  store: EventStore;
  bus: BusService;
}

/** `n` nodes on one fresh database. */
async function nodes(n: number, pollMs = 1000): Promise<Node[]> {
  const url = await createTestDatabase(server.url);
  const out: Node[] = [];
  for (let i = 0; i < n; i++) {
    const db = await openPg(url, { maxConnections: 4 });
    const store = createPgEventStore(db, { pollMs, log: () => {} });
    const bus = new BusService(store);
    out.push({ db, store, bus });
    cleanup.push(async () => {
      await bus.close();
      await db.close();
    });
  }
  return out;
}

/** Waits for events across nodes: up to 20 s. */
const DELIVERED = { ...WAIT, timeout: 20_000 };

/** Every event of `bus`, through the store's pages. */
async function readAll(store: EventStore, bus: string): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (;;) {
    const page = await store.read(bus, all.at(-1)?.seq ?? 0, 1000, 4 << 20, 128);
    if (page.length === 0) return all;
    all.push(...page);
  }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

test("1 500 concurrent outs from three nodes get contiguous unique seqs, each stored with its own payload", async () => {
  const ns = await nodes(3);
  const acks = await Promise.all(
    range(1500).map((i) => ns[i % 3]!.bus.out("c", { node: i % 3, i }).then((ack) => ({ ack, i }))),
  );
  expect(acks.map((a) => a.ack.seq).sort((a, b) => a - b)).toEqual(range(1500));
  const stored = await readAll(ns[1]!.store, "c");
  expect(stored.map((e) => e.seq)).toEqual(range(1500));
  const bySeq = new Map(stored.map((e) => [e.seq, JSON.parse(e.payloadJson) as { i: number }]));
  for (const { ack, i } of acks) expect(bySeq.get(ack.seq)!.i).toBe(i);
  // Each node's own acks are in its call order (group commits of one node are ordered).
  for (const node of [0, 1, 2]) {
    const seqs = acks.filter((a) => a.i % 3 === node).map((a) => a.ack.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  }
  expect(await ns[2]!.store.list()).toEqual([{ bus: "c", firstSeq: 1, lastSeq: 1500, count: 1500 }]);
  expect(await ns[0]!.bus.lastSeq("c")).toBe(1500);
});

test("a subscriber on one node sees every node's events live, in seq order, with no gap or duplicate", async () => {
  const [a, b, c] = await nodes(3);
  const seen: StoredEvent[] = [];
  const sub = b!.bus.subscribe("live", undefined, (events) => {
    seen.push(...events);
  });
  await sub.ready;
  // Wait until B's LISTEN connection is up (a notification reaches it), so what follows is live.
  await a!.bus.out("live", { warmup: true });
  await vi.waitFor(() => expect(seen.length, "the first event").toBe(1), DELIVERED);
  const sent: Promise<unknown>[] = [];
  for (let i = 0; i < 300; i++) {
    sent.push(a!.bus.out("live", { from: "a", i }));
    sent.push(c!.bus.out("live", { from: "c", i }));
    if (i % 50 === 0) sent.push(b!.bus.out("live", { from: "b", i })); // its own: delivered once
  }
  await Promise.all(sent);
  await vi.waitFor(() => expect(seen.length, "every event").toBeGreaterThanOrEqual(1 + 600 + 6), DELIVERED);
  // Deliberately let time pass: a duplicate delivery would show up now (something that must not happen).
  await new Promise((r) => setTimeout(r, 300));
  expect(seen.map((e) => e.seq)).toEqual(range(607));
  const stored = await readAll(a!.store, "live");
  expect(seen).toEqual(stored);
  sub.close();
});

test("a subscriber with a cursor gets the backlog written by other nodes, then their live events", async () => {
  const [a, b] = await nodes(2);
  for (let i = 0; i < 1200; i++) void a!.bus.out("back", { i });
  await a!.bus.committed();
  const seen: number[] = [];
  const sub = b!.bus.subscribe("back", 100, (events) => {
    for (const e of events) seen.push(e.seq);
  });
  await vi.waitFor(() => expect(seen.length, "the backlog").toBe(1100), DELIVERED);
  for (let i = 0; i < 100; i++) void a!.bus.out("back", { i });
  await vi.waitFor(() => expect(seen.length, "the live events").toBe(1200), DELIVERED);
  expect(seen).toEqual(range(1300).slice(100));
  sub.close();
});

test("a lost LISTEN connection costs latency, never an event: it reconnects and the poll fills in", async () => {
  const [a, b] = await nodes(2, 200);
  const seen: number[] = [];
  const sub = b!.bus.subscribe("lossy", undefined, (events) => {
    for (const e of events) seen.push(e.seq);
  });
  await sub.ready;
  await a!.bus.out("lossy", 0);
  await vi.waitFor(() => expect(seen.length, "the first event").toBe(1), DELIVERED);
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    for (let round = 0; round < 3; round++) {
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()",
      );
      if (round === 0) expect(killed.rowCount).toBe(2); // both nodes' LISTEN connections
      await Promise.all(range(50).map((i) => a!.bus.out("lossy", { round, i })));
    }
  } finally {
    await admin.end();
  }
  await vi.waitFor(() => expect(seen.length, "every event after the connections were killed").toBe(151), DELIVERED);
  expect(seen).toEqual(range(151));
  sub.close();
});

test("payloads come back byte for byte: key order, unicode, escapes", async () => {
  const [a, b] = await nodes(2);
  const payloads = [
    { z: 1, a: 2, m: { y: [3, 2, 1], b: null } },
    "héllo wörld ☃ 😀 \u2028 \u0000 \\ \" '",
    [1.5, -0, 1e21, true, false, null, { "": "" }],
  ];
  for (const p of payloads) await a!.bus.out("exact", p);
  await a!.bus.outJson("exact", '{"spaced" : [ 1 ,2 ] }');
  const got = await readAll(b!.store, "exact");
  expect(got.map((e) => e.payloadJson)).toEqual([...payloads.map((p) => JSON.stringify(p)), '{"spaced" : [ 1 ,2 ] }']);
  expect(Object.keys(JSON.parse(got[0]!.payloadJson))).toEqual(["z", "a", "m"]);
});

test("a page stops at its byte budget (the first event always), counting the overhead per event", async () => {
  const [a] = await nodes(1);
  const small = JSON.stringify("x".repeat(98)); // 100 bytes
  for (let i = 0; i < 10; i++) void a!.bus.outJson("budget", small);
  void a!.bus.outJson("budget", JSON.stringify("é".repeat(2000))); // 4 002 bytes of UTF-8
  void a!.bus.outJson("budget", small);
  await a!.bus.committed();
  const seqs = async (after: number, limit: number, maxBytes: number, overhead: number) =>
    (await a!.store.read("budget", after, limit, maxBytes, overhead)).map((e) => e.seq);
  expect(await seqs(0, 100, 500, 28)).toEqual([1, 2, 3]); // 128 bytes each: a fourth would make 512
  expect(await seqs(0, 100, 640, 28)).toEqual([1, 2, 3, 4, 5]);
  expect(await seqs(0, 3, 1 << 20, 0)).toEqual([1, 2, 3]);
  expect(await seqs(10, 100, 1000, 0)).toEqual([11]); // the first event even past the budget
  expect(await seqs(10, 100, 4101, 0)).toEqual([11]);
  expect(await seqs(10, 100, 4102, 0)).toEqual([11, 12]);
  expect(await seqs(12, 100, 1000, 0)).toEqual([]);
});

test("list, trim (keepLast, beforeTs) and trimAllBefore keep counts and first seqs; seqs never go back", async () => {
  const [a] = await nodes(1);
  for (let i = 0; i < 100; i++) void a!.bus.out("t1", i);
  for (let i = 0; i < 10; i++) void a!.bus.out("t2", i);
  await a!.bus.committed();
  expect(await a!.store.trim("t1", { keepLast: 30 })).toBe(70);
  expect(await a!.store.list()).toEqual([
    { bus: "t1", firstSeq: 71, lastSeq: 100, count: 30 },
    { bus: "t2", firstSeq: 1, lastSeq: 10, count: 10 },
  ]);
  expect(await a!.store.trim("nope", { keepLast: 1 })).toBe(0);
  expect(await a!.store.trim("t1", { beforeTs: Date.now() + 1000 })).toBe(30);
  expect(await a!.store.trimAllBefore(Date.now() + 1000)).toBe(10);
  expect(await a!.store.list()).toEqual([
    { bus: "t1", firstSeq: 101, lastSeq: 100, count: 0 },
    { bus: "t2", firstSeq: 11, lastSeq: 10, count: 0 },
  ]);
  expect((await a!.bus.out("t1", "again")).seq).toBe(101);
  expect(await a!.store.list()).toContainEqual({ bus: "t1", firstSeq: 101, lastSeq: 101, count: 1 });
});

test("a store made while its database is still opening waits for it; one that cannot open rejects its calls", async () => {
  const url = await createTestDatabase(server.url);
  const opening = openPg(url, { maxConnections: 2 });
  const store = createPgEventStore(opening, { log: () => {} });
  const bus = new BusService(store);
  cleanup.push(async () => {
    await bus.close();
    await (await opening).close();
  });
  const ack = await bus.out("early", { first: true });
  expect(ack.seq).toBe(1);
  expect(await store.lastSeq("early")).toBe(1);

  const refused = createPgEventStore(openPg(`${server.url}_missing`), { log: () => {} });
  await expect(refused.lastSeq("x")).rejects.toThrow(/does not exist/);
  refused.follow!(
    () => {},
    () => [],
  )(); // following a database that never opened is a no-op, and stops cleanly
});
