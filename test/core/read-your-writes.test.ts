/**
 * Read your writes: operations are dispatched in arrival order per connection, and a `read` or
 * `subscribe` sees every `out` called before it, even while that `out` still waits for its
 * group commit. Pipelined in one write (stdio) or back to back on one WebSocket, 10 of 10.
 */
import { afterEach, expect, it } from "vitest";
import type { Claw } from "../../src/index.js";
import { stdioClient, wsClient } from "../adapters/clients.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

let claw: Claw | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  if (!server) await claw?.close();
  server = undefined;
  claw = undefined;
});

const RUNS = 10;

function pair(run: number): string[] {
  return [
    JSON.stringify({ op: "out", args: { bus: "ryw", payload: { run } }, id: `out${run}` }),
    JSON.stringify({ op: "read", args: { bus: "ryw", after: run }, id: `read${run}` }),
    JSON.stringify({ op: "subscribe", args: { bus: "ryw", after: run }, id: `sub${run}` }),
  ];
}

/** Checks that read r saw event r + 1 and that the subscription got it as its first frame. */
function seen(frames: any[], run: number): boolean {
  const read = frames.find((f) => f.id === `read${run}`);
  const sub = frames.find((f) => f.id === `sub${run}`);
  const first = frames.find((f) => f.event === "bus" && f.sub === sub?.result?.sub);
  return read?.result?.events?.[0]?.payload?.run === run && first?.payload?.run === run;
}

it("stdio: out then read and subscribe in one write see the event, 10 of 10", async () => {
  claw = memClaw();
  const client = stdioClient(claw);
  let ok = 0;
  for (let run = 0; run < RUNS; run++) {
    client.input.write(`${pair(run).join("\n")}\n`); // one chunk: all three arrive together
    await client.until((f) => f.some((x) => x.id === `sub${run}`) && f.some((x) => x.id === `read${run}`));
    const sub = client.frames.find((x) => x.id === `sub${run}`)?.result?.sub;
    await client.until((f) => f.some((x) => x.event === "bus" && x.sub === sub));
    if (seen(client.frames, run)) ok++;
  }
  await client.close();
  expect(ok).toBe(RUNS);
});

it("WebSocket: out then read and subscribe back to back see the event, 10 of 10", async () => {
  claw = memClaw();
  server = await startServer(claw);
  const client = await wsClient(server);
  let ok = 0;
  for (let run = 0; run < RUNS; run++) {
    for (const frame of pair(run)) client.raw(frame);
    await client.until((f) => f.some((x) => x.id === `sub${run}`) && f.some((x) => x.id === `read${run}`));
    const sub = client.frames.find((x) => x.id === `sub${run}`)?.result?.sub;
    await client.until((f) => f.some((x) => x.event === "bus" && x.sub === sub));
    if (seen(client.frames, run)) ok++;
  }
  await client.close();
  expect(ok).toBe(RUNS);
});
