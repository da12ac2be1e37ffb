/**
 * The bus on the asynchronous storage interface (SQLite): its commits never land inside
 * another caller's open transaction (they wait for it, and survive its rollback), and a
 * subscription without a cursor starts exactly after every `out` called before it, before
 * every one called after, however the group commits fall.
 */
import { afterEach, expect, test, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import type { SqliteSql } from "../../src/store/sqlite-sql.js";
import { memClaw } from "../helpers/claw.js";
import { WAIT } from "../helpers/wait.js";

let claw: Claw | undefined;
afterEach(async () => {
  await claw?.close();
  claw = undefined;
});

test("a group commit waits for an open transaction and is not part of it (its rollback keeps the event)", async () => {
  claw = memClaw();
  const sql = claw.services.sql as SqliteSql;
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let inside = false;
  const tx = sql.tx(async (q) => {
    await q.run("INSERT INTO meta (key, value) VALUES ('probe', '1')");
    inside = true;
    await gate; // holds the writer, as a transaction waiting on its own statements would
    throw new Error("roll back");
  });
  await vi.waitFor(() => expect(inside, "the transaction started").toBe(true), WAIT);
  let acked = false;
  const ack = claw.services.bus.out("iso", { a: 1 }).then((a) => {
    acked = true;
    return a;
  });
  // Several turns of the event loop: the commit is due, but the transaction holds the writer.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  expect(acked).toBe(false);
  release();
  await expect(tx).rejects.toThrow("roll back");
  expect((await ack).seq).toBe(1);
  expect(await sql.get("SELECT value FROM meta WHERE key = 'probe'")).toBeUndefined();
  const read = await claw.bus.read({ bus: "iso" });
  expect(read.events.map((e) => e.payload)).toEqual([{ a: 1 }]);
});

test("a subscription without after starts after every out called before it and sees every one called after", async () => {
  claw = memClaw();
  const bus = claw.services.bus;
  for (let round = 0; round < 5; round++) {
    const name = `fence-${round}`;
    // Before: some committed, some still queued when the subscription is made.
    for (let i = 0; i < 20; i++) void bus.out(name, { before: i });
    if (round % 2 === 1) await bus.committed();
    for (let i = 0; i < 10; i++) void bus.out(name, { before: 20 + i });
    const seen: unknown[] = [];
    const sub = bus.subscribe(name, undefined, (events) => {
      for (const e of events) seen.push(JSON.parse(e.payloadJson));
    });
    for (let i = 0; i < 15; i++) void bus.out(name, { after: i });
    await vi.waitFor(() => expect(seen.length, "the later events").toBeGreaterThanOrEqual(15), WAIT);
    expect(await sub.ready).toBe(30);
    expect(seen).toEqual(Array.from({ length: 15 }, (_, i) => ({ after: i })));
    sub.close();
  }
});
