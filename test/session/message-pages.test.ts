/** get_messages answers pages bounded in bytes as well as in count, continued by `after`. */
import { expect, it } from "vitest";
import type { Claw } from "../../src/index.js";
import { answer, type FakeResponses } from "../fixtures/fake-responses.js";
import { withFakeClaw } from "./helpers.js";

let fake: FakeResponses;
let claw: Claw;
withFakeClaw(
  (f, c) => {
    fake = f;
    claw = c;
  },
  () => ({ fake, claw }),
);

const MIB = 1024 * 1024;

it("pages of large messages stay within maxBytes, always hold one, and lose nothing", async () => {
  const s = await claw.session.start({ sessionKey: "big-messages" });
  // Large prompts (a model's long answer streams slowly through the fake server; the bound is the same).
  const prompts = Array.from({ length: 10 }, (_, i) => `${i} ${"q".repeat(MIB / 4)}`);
  for (const message of prompts) {
    fake.script(answer("ok"));
    await s.prompt({ message });
  }
  const all: { seq: number; text?: string }[] = [];
  let after = 0;
  let pages = 0;
  for (;;) {
    const page = await s.messages({ after, maxBytes: MIB });
    pages++;
    expect(page.messages.length).toBeGreaterThan(0);
    // Every text counts; a page goes past its budget only by being one message alone.
    if (page.messages.length > 1) expect(Buffer.byteLength(JSON.stringify(page.messages))).toBeLessThan(1.1 * MIB);
    all.push(...page.messages);
    expect(page.next).toBe(page.messages.at(-1)!.seq);
    after = page.next;
    if (!page.hasMore) break;
  }
  expect(pages).toBeGreaterThanOrEqual(4);
  expect(all.map((m) => m.seq)).toEqual(all.map((_, i) => all[0]!.seq + i)); // no gaps, no repeats
  const texts = all.map((m) => m.text);
  expect(texts.filter((t) => t !== "ok")).toEqual(prompts);
  expect(texts.filter((t) => t === "ok")).toHaveLength(prompts.length);
  const whole = await s.messages({ after: 0 }); // default budget 4 MiB: all 20 fit (about 2.5 MiB)
  expect(whole.messages).toHaveLength(2 * prompts.length);
  expect(whole.hasMore).toBe(false);

  const tiny = await s.messages({ after: 0, maxBytes: 1024, limit: 1000 });
  expect(tiny.messages.length).toBeGreaterThanOrEqual(1);
  expect(tiny.hasMore).toBe(true);
  const few = await s.messages({ after: 0, limit: 2 });
  expect(few.messages).toHaveLength(2); // small messages: the count still bounds the page
  expect(few.hasMore).toBe(true);
});

it("list_sessions pages sessions with long instructions within maxBytes, and loses none", async () => {
  const keys = Array.from({ length: 10 }, (_, i) => `long-instructions-${i}`);
  for (const sessionKey of keys) await claw.session.start({ sessionKey, instructions: "i".repeat(MIB / 4) });
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await claw.session.list({ maxBytes: MIB, ...(cursor ? { cursor } : {}) });
    pages++;
    expect(page.sessions.length).toBeGreaterThan(0);
    if (page.sessions.length > 1) expect(Buffer.byteLength(JSON.stringify(page.sessions))).toBeLessThan(1.1 * MIB);
    seen.push(...page.sessions.map((s) => s.sessionKey ?? ""));
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  const listed = seen.filter((k) => k.startsWith("long-instructions-"));
  expect(listed.sort()).toEqual([...keys].sort()); // each once
  expect(pages).toBeGreaterThanOrEqual(3);
  // The smallest budget still makes progress, one session a page; the default holds them all.
  expect((await claw.session.list({ maxBytes: 1024 })).sessions).toHaveLength(1);
  expect((await claw.session.list({})).sessions.length).toBeGreaterThanOrEqual(10);
});
