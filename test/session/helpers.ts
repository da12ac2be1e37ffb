/** Shared setup of the session tests: a fake Responses server and claws pointed at it. */
import type { ClawOptions } from "../../src/index.js";
import { memClaw } from "../helpers/claw.js";
import type { FakeResponses } from "../fixtures/fake-responses.js";

/** A claw on ":memory:" whose model calls go to `fake`, with fast retries. */
export function fakeClaw(fake: FakeResponses, options: ClawOptions = {}) {
  return memClaw({ baseURL: fake.url, modelRetry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 100 }, ...options });
}

/** Payloads of every event on `bus`, in seq order. */
export async function busPayloads(claw: ReturnType<typeof memClaw>, bus = "thebus"): Promise<any[]> {
  const out: any[] = [];
  let after = 0;
  for (;;) {
    const r = await claw.bus.read({ bus, after, limit: 1000 });
    out.push(...r.events.map((e) => e.payload));
    if (r.events.length < 1000) return out;
    after = r.next;
  }
}

/** Polls `check` every 10 ms until it returns true (or fails after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
