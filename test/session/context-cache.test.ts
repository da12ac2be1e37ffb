/** The context cache keeps recently run sessions' contexts within a count and a size, least recently used out first. */
import { afterEach, beforeEach, expect, it } from "vitest";
import { ContextCache } from "../../src/agent/context-cache.js";
import type { SessionStore } from "../../src/agent/session-store.js";
import { type Claw, createClaw } from "../../src/index.js";

let claw: Claw;
let store: SessionStore;

beforeEach(() => {
  claw = createClaw({ db: ":memory:", project: "context-cache", provider: "demo" });
  store = claw.services.sessions.store;
});
afterEach(() => claw.close());

/** A session holding `n` user messages of `chars` characters each; its id. */
async function session(key: string, n: number, chars = 10): Promise<string> {
  const { sessionId } = await claw.session.start({ sessionKey: key });
  for (let i = 0; i < n; i++) await store.append(sessionId, { runId: null, role: "user", text: "x".repeat(chars) });
  return sessionId;
}

it("keeps a reloaded context and reads only the messages stored since", async () => {
  const cache = new ContextCache();
  const id = await session("a", 3);
  const first = await cache.load(store, id);
  expect(first.lastSeq).toBe(3);
  await store.append(id, { runId: null, role: "user", text: "new" });
  const again = await cache.load(store, id);
  expect(again).toBe(first);
  expect(again.lastSeq).toBe(4);
  expect(again.input().at(-1)).toMatchObject({ role: "user", content: "new" });
});

it("drops the least recently used session past its session count", async () => {
  const cache = new ContextCache(2);
  const [a, b, c] = [await session("a", 1), await session("b", 1), await session("c", 1)];
  const ca = await cache.load(store, a);
  await cache.load(store, b);
  await cache.load(store, a); // a is now the most recent
  await cache.load(store, c);
  expect(cache.size).toBe(2);
  expect(await cache.load(store, a)).toBe(ca); // kept
  const cb = await cache.load(store, b);
  expect(cb.lastSeq).toBe(1); // read again from storage
  expect(cache.size).toBe(2);
});

it("drops the least recently used contexts past its size, and keeps none larger than the bound alone", async () => {
  const big = await session("big", 4, 1000);
  const small1 = await session("s1", 2, 10);
  const small2 = await session("s2", 2, 10);
  const cache = new ContextCache(16, 3000);
  const s1 = await cache.load(store, small1);
  await cache.load(store, small2);
  expect(cache.size).toBe(2);
  // Larger than the bound on its own: it serves its run, and evicts the others on the way out.
  const b = await cache.load(store, big);
  expect(b.chars).toBeGreaterThan(3000);
  expect(b.input()).toHaveLength(4);
  expect(cache.size).toBe(0);
  expect(await cache.load(store, small1)).not.toBe(s1);
  expect(cache.size).toBe(1);
});

it("counts a context's size as its run appends to it, and a summary starts it over", async () => {
  const id = await session("grow", 1, 10);
  const cache = new ContextCache();
  const c = await cache.load(store, id);
  const before = c.chars;
  c.add(await store.append(id, { runId: null, role: "user", text: "y".repeat(500) }));
  expect(c.chars).toBeGreaterThan(before + 500);
  c.add(await store.append(id, { runId: null, role: "summary", text: "short" }));
  expect(c.chars).toBeLessThan(200);
});
