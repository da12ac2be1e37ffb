/** server_identity, continuity_context, memory_add and memory_search (FTS5). */
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { type Claw, createClaw } from "../../src/index.js";
import { apiClaw, tempDir } from "../helpers/claw.js";
import { completion } from "./helpers.js";

let claw: Claw;
beforeEach(async () => {
  claw = await apiClaw();
});
afterEach(async () => {
  await claw.close();
});

test("server_identity: a stable instance id kept in the database, version, project, op names", async () => {
  const db = join(tempDir(), "claw.db");
  const a = createClaw({ db, project: "alpha", name: "box-1", log: () => {} });
  const idA = await a.call("server_identity", {});
  await a.close();
  const b = createClaw({ db, project: "alpha", log: () => {} });
  const idB = await b.call("server_identity", {});
  await b.close();
  expect(idB.instance).toBe(idA.instance);
  expect(idA).toMatchObject({
    name: "box-1",
    project: "alpha",
    schemaVersion: expect.any(Number),
    version: expect.any(String),
  });
  for (const op of [
    "run_task",
    "check_task",
    "get_task",
    "list_tasks",
    "cancel_task",
    "task_create",
    "task_update",
    "continuity_context",
    "memory_add",
    "memory_search",
    "task_telemetry",
  ]) {
    expect(idA.ops).toContain(op);
  }
  const other = await apiClaw();
  expect((await other.call("server_identity", {})).instance).not.toBe(idA.instance);
  await other.close();
});

test("memory_add stores a note; memory_search finds it ranked by relevance (stemming included)", async () => {
  const a = await claw.memory.add({ text: "Deploys go through the staging bus before production", tags: ["deploy"] });
  await claw.memory.add({ text: "The staging database is reset every night" });
  await claw.memory.add({ text: "Lunch is at noon" });
  expect(a).toMatchObject({ memoryId: expect.stringMatching(/^mem_/), replayed: false });
  const r = await claw.memory.search({ query: "deploying to staging" });
  expect(r.results.map((x) => x.text)).toEqual([
    "Deploys go through the staging bus before production",
    "The staging database is reset every night",
  ]);
  expect(r.results[0]!.score).toBeGreaterThan(r.results[1]!.score);
  expect(r.results[0]).toMatchObject({ memoryId: a.memoryId, tags: ["deploy"], createdAt: a.createdAt });
  expect((await claw.memory.search({ query: "deploy", limit: 1 })).results).toHaveLength(1);
  expect((await claw.memory.search({ query: "nothing matches this" })).results).toEqual([]);
});

test("memory_search is safe against any query text: FTS5 syntax in user input never errors", async () => {
  await claw.memory.add({ text: 'He said "hello" (twice) — and NOT AND OR near* col:value' });
  const hostile = [
    '"',
    '"unterminated',
    "AND",
    "OR NOT",
    "NEAR(a b)",
    "*",
    "text:hello",
    "(",
    ")",
    "^hello",
    "a AND (b OR",
    "-",
    "'; DROP TABLE memory; --",
    "",
    "   ",
    "💥",
    "hello*",
    'he said "hello"',
  ];
  for (const query of hostile) {
    const res = await claw.do({ op: "memory_search", args: { query } });
    expect(res.ok, `query ${JSON.stringify(query)}`).toBe(true);
  }
  const hit = await claw.memory.search({ query: 'he said "hello" AND (twice' });
  expect(hit.results).toHaveLength(1);
});

test("memory is per project: the server's project by default", async () => {
  await claw.memory.add({ text: "alpha fact about widgets" });
  await claw.memory.add({ text: "beta fact about widgets", project: "beta" });
  expect((await claw.memory.search({ query: "widgets" })).results.map((r) => r.text)).toEqual([
    "alpha fact about widgets",
  ]);
  expect((await claw.memory.search({ query: "widgets", project: "beta" })).results.map((r) => r.text)).toEqual([
    "beta fact about widgets",
  ]);
});

test("memory_add with the same idempotency key: same args replay, other args → idempotency_conflict", async () => {
  const a = await claw.memory.add({ text: "remember me", idempotencyKey: "m1" });
  const b = await claw.memory.add({ text: "remember me", idempotencyKey: "m1" });
  expect(b).toEqual({ ...a, replayed: true });
  const res = await claw.do({ op: "memory_add", args: { text: "something else", idempotencyKey: "m1" } });
  expect(!res.ok && res.error.code).toBe("idempotency_conflict");
  expect((await claw.memory.search({ query: "remember" })).results).toHaveLength(1);
  const blank = await claw.do({ op: "memory_add", args: { text: "   " } });
  expect(!blank.ok && blank.error.code).toBe("invalid_args");
});

test("continuity_context: identity, open tasks, recent handoffs and recent memory of the project", async () => {
  const open = await claw.task.create({ title: "open work" });
  const finished = await claw.task.create({ title: "finished work" });
  await claw.task.update(completion(claw, finished));
  await claw.task.create({ title: "another project", project: "elsewhere" });
  await claw.memory.add({ text: "a decision", sessionKey: "s1" });
  await claw.memory.add({ text: "elsewhere note", project: "elsewhere" });
  const ctx = await claw.call("continuity_context", {});
  expect(ctx.identity.instance).toBe(claw.identity.instance);
  expect(ctx.identity.project).toBe("test");
  expect(ctx.openTasks.map((t) => t.taskId)).toEqual([open.taskId]);
  expect(ctx.recentHandoffs).toEqual([
    expect.objectContaining({
      taskId: finished.taskId,
      status: "done",
      handoff: { completed: "wrote the notes", next: "review them", blockers: "" },
    }),
  ]);
  expect(ctx.recentMemory.map((m) => m.text)).toEqual(["a decision"]);
  const bySession = await claw.call("continuity_context", { sessionKey: "nobody" });
  expect(bySession.openTasks).toEqual([]);
  expect(bySession.recentMemory).toEqual([]);
  const elsewhere = await claw.call("continuity_context", { project: "elsewhere" });
  expect(elsewhere.openTasks.map((t) => t.title)).toEqual(["another project"]);
  expect(elsewhere.recentMemory.map((m) => m.text)).toEqual(["elsewhere note"]);
});

test("memory_search bounds its query: 4096 characters, only the first 32 words count", async () => {
  await claw.memory.add({ text: "the checkpoint worker copies pages" });
  const huge = await claw.do({ op: "memory_search", args: { query: "checkpoint ".repeat(100 * 1024) } }); // 1.1 MB: past 4096 characters, inside the 10 MiB request limit
  expect(huge).toMatchObject({ ok: false, error: { code: "invalid_args" } });
  expect(JSON.stringify(huge)).toContain("at most 4096 characters");
  // 40 distinct words: the match still works on the first 32, the rest is never scanned.
  const words = Array.from({ length: 39 }, (_, i) => `w${i}`).join(" ");
  const r = await claw.memory.search({ query: `checkpoint ${words}` });
  expect(r.results.map((x) => x.text)).toEqual(["the checkpoint worker copies pages"]);
  const late = await claw.memory.search({ query: `${words} checkpoint` });
  expect(late.results).toEqual([]);
});

test("continuity_context: pages of at most maxBytes, continued through nextCursor, nothing lost", async () => {
  const mib = 1024 * 1024;
  const texts = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, "0")} ${"n".repeat(mib)}`);
  for (const text of texts) await claw.memory.add({ text, project: "big" });
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await claw.call("continuity_context", { project: "big", limit: 100, cursor });
    pages++;
    expect(page.recentMemory.length).toBeGreaterThan(0); // always progress
    // Default budget 4 MiB: never more than fits, except a page's single first item.
    expect(page.recentMemory.reduce((n, m) => n + Buffer.byteLength(m.text), 0)).toBeLessThanOrEqual(4 * mib);
    seen.push(...page.recentMemory.map((m) => m.text));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages < 50);
  expect(pages).toBeGreaterThanOrEqual(5);
  expect(seen).toEqual([...texts].reverse()); // newest first, each once
  const small = await claw.call("continuity_context", { project: "big", limit: 100, maxBytes: 1024 });
  expect(small.recentMemory).toHaveLength(1); // one item even when it alone exceeds the budget
  expect(small.nextCursor).not.toBeNull();
  const few = await claw.call("continuity_context", { project: "big", limit: 3 });
  expect(few.recentMemory.map((m) => m.text)).toEqual(texts.slice(-3).reverse());
  expect(few.nextCursor).toBeNull(); // limit caps each list over all pages
  await expect(claw.call("continuity_context", { cursor: "nonsense" })).rejects.toMatchObject({ code: "invalid_args" });
});

test("list_tasks: pages of at most maxBytes of task text, continued through nextCursor, nothing lost", async () => {
  const big = "h".repeat(512 * 1024);
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const t = await claw.task.create({ title: `big ${i}`, project: "bytes" });
    await claw.task.update({
      taskId: t.taskId,
      expectedVersion: t.version,
      handoff: { completed: big, next: `n${i}` },
    });
    ids.push(t.taskId);
  }
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await claw.call("list_tasks", { project: "bytes", limit: 500, maxBytes: 1024 * 1024, cursor });
    pages++;
    expect(page.tasks.length).toBeGreaterThan(0);
    if (page.tasks.length > 1) expect(Buffer.byteLength(JSON.stringify(page.tasks))).toBeLessThan(1.1 * 1024 * 1024);
    seen.push(...page.tasks.map((t) => t.taskId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages < 50);
  expect(pages).toBeGreaterThanOrEqual(6);
  expect(seen).toEqual([...ids].reverse());
  const all = await claw.call("list_tasks", { project: "bytes" }); // default 4 MiB: 6 MiB of handoffs do not fit
  expect(all.tasks.length).toBeLessThan(12);
  expect(all.nextCursor).not.toBeNull();
});

test("memory_search: pages of at most maxBytes, best first, continued through nextCursor", async () => {
  const texts = Array.from({ length: 10 }, (_, i) => `widget ${i} ${"w ".repeat(256 * 1024)}`);
  for (const text of texts) await claw.memory.add({ text, project: "search-bytes" });
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await claw.call("memory_search", {
      query: "widget",
      project: "search-bytes",
      limit: 100,
      maxBytes: 1024 * 1024,
      cursor,
    });
    pages++;
    expect(page.results.length).toBeGreaterThan(0);
    if (page.results.length > 1)
      expect(Buffer.byteLength(JSON.stringify(page.results))).toBeLessThan(1.1 * 1024 * 1024);
    seen.push(...page.results.map((r) => r.text));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages < 50);
  expect(pages).toBeGreaterThanOrEqual(5);
  expect([...seen].sort()).toEqual([...texts].sort()); // each once
  const few = await claw.call("memory_search", { query: "widget", project: "search-bytes", limit: 2 });
  expect(few.results).toHaveLength(2);
  expect(few.nextCursor).not.toBeNull();
});
