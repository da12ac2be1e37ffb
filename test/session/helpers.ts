/** Shared setup of the session tests: a fake Responses server and claws pointed at it. */
import { afterEach, beforeEach, expect } from "vitest";
import type { Claw, ClawOptions } from "../../src/index.js";
import { type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { apiClaw } from "../helpers/claw.js";

/** A claw on ":memory:" whose model calls go to `fake`, with fast retries. */
export function fakeClaw(fake: FakeResponses, options: ClawOptions = {}): Promise<Claw> {
  return apiClaw({ baseURL: fake.url, modelRetry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 100 }, ...options });
}

/** Payloads of every event on `bus`, in seq order. */
export async function busPayloads(claw: Claw, bus = "thebus"): Promise<any[]> {
  const out: any[] = [];
  let after = 0;
  for (;;) {
    const r = await claw.bus.read({ bus, after, limit: 1000 });
    out.push(...r.events.map((e) => e.payload));
    if (r.events.length < 1000) return out;
    after = r.next;
  }
}

/**
 * Before each test: a fake Responses server and a claw pointed at it, handed to `assign`. After
 * each: closes the claw and server that `current` returns (a test may have replaced the claw).
 */
export function withFakeClaw(
  assign: (fake: FakeResponses, claw: Claw) => void,
  current: () => { fake: FakeResponses; claw: Claw },
): void {
  beforeEach(async () => {
    const fake = await startFakeResponses();
    assign(fake, await fakeClaw(fake));
  });
  afterEach(async () => {
    const { fake, claw } = current();
    await claw.close();
    await fake.close();
  });
}

/** The text of an input item: a user message's string, or an assistant item's output_text parts. */
export function inputText(item: any): string {
  if (typeof item?.content === "string") return item.content;
  if (!Array.isArray(item?.content)) return "";
  return item.content.map((p: any) => p.text ?? p.refusal ?? "").join("");
}

/** An assistant message item as the fake server sends it (and as it is replayed). */
export const assistantItem = (text: string) =>
  expect.objectContaining({
    type: "message",
    role: "assistant",
    status: "completed",
    id: expect.any(String),
    content: [expect.objectContaining({ type: "output_text", text })],
  });
