/** A run's events and the bus's payload limit: an event too large is published without its body, never lost or thrown. */
import { afterEach, beforeEach, expect, test } from "vitest";
import { RunEvents } from "../../src/agent/run-events.js";
import type { Claw } from "../../src/index.js";
import { apiClaw } from "../helpers/claw.js";

let claw: Claw;
const lines: string[] = [];
beforeEach(async () => {
  lines.length = 0;
  claw = await apiClaw({ limits: { maxPayloadBytes: 1024 }, log: (line) => lines.push(line) });
});
afterEach(async () => {
  await claw.close();
});

test("an event past the payload limit is published as its type and ids with why its body was left out; the events keep their order", async () => {
  const events = new RunEvents(claw.services.bus, "run-bus", { sessionId: "ses_1", runId: "run_1" }, (l) =>
    lines.push(l),
  );
  events.raw({ type: "response.output_text.delta", delta: "small" });
  events.raw({ type: "response.output_text.delta", delta: "x".repeat(4000) });
  events.raw({ type: "response.completed" });
  await events.flushed();
  const published = (await claw.bus.read({ bus: "run-bus", after: 0 })).events.map((e) => e.payload);
  expect(published).toEqual([
    { type: "response.output_text.delta", delta: "small", sessionId: "ses_1", runId: "run_1" },
    {
      type: "response.output_text.delta",
      sessionId: "ses_1",
      runId: "run_1",
      omitted: expect.stringMatching(/^payload not published: payload is \d+ bytes; the limit is 1024$/),
    },
    { type: "response.completed", sessionId: "ses_1", runId: "run_1" },
  ]);
  expect(lines).toEqual([]);
});

test("a payload the bus refuses rejects its out call instead of throwing, so a publisher's catch sees it", async () => {
  const refused = claw.services.bus.out("b", { text: "y".repeat(2000) });
  expect(refused).toBeInstanceOf(Promise);
  await expect(refused).rejects.toMatchObject({ code: "payload_too_large" });
  let deep: unknown = 1;
  for (let i = 0; i < 200; i++) deep = [deep];
  await expect(claw.services.bus.out("b", deep)).rejects.toMatchObject({ code: "invalid_args" });
});
