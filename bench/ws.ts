/**
 * WebSocket fan-out: E events published in-process (durable) and delivered to 100 subscribers
 * over /ws, vs a raw `ws` server broadcasting frames of the same shape to 100 sockets. The
 * subscribers live in a separate process and count frames; time runs from the first publish to
 * the last frame received.
 */

import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { WebSocketServer } from "ws";
import { listenHttp } from "../adapters/http.js";
import { createAccessPolicy } from "../adapters/security.js";
import { attachWebSocket } from "../adapters/ws-server.js";
import { type Claw, createClaw } from "../src/index.js";
import { childMessages, gc, now, pool, SMOKE, size, spawnBenchScript, tempDir } from "./measure.js";
import { samplePayload } from "./raw-db.js";
import { type Row, row } from "./table.js";

const CLIENTS = 100;
// The subscribers send a token (as every peer of a served claw must); the raw server ignores it.
const TOKEN = randomBytes(24).toString("base64url");
const BATCH = 1000;

async function fanOut(
  url: string,
  mode: "tsclaw" | "raw",
  events: number,
  publish: () => Promise<void>,
): Promise<number> {
  const child = spawnBenchScript("ws-clients.ts", [url, mode, String(CLIENTS), String(events)], { BENCH_TOKEN: TOKEN });
  const msgs = childMessages(child);
  await msgs.next((m) => m.ready === true);
  const t0 = now();
  await publish();
  await msgs.next((m) => m.done === true);
  return now() - t0;
}

async function publishTsclaw(claw: Claw, events: number): Promise<void> {
  await pool(BATCH, events, (i) => claw.bus.out({ bus: "fan", payload: samplePayload(i) }));
}

async function publishRaw(wss: WebSocketServer, events: number): Promise<void> {
  for (let i = 0; i < events; i += BATCH) {
    const ts = Date.now();
    for (let j = i; j < Math.min(events, i + BATCH); j++) {
      const frame = JSON.stringify({ event: "bus", sub: "s1", bus: "fan", seq: j + 1, ts, payload: samplePayload(j) });
      for (const c of wss.clients) c.send(frame);
    }
    await new Promise((r) => setImmediate(r)); // one batch per tick, as group commit delivers
  }
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const events = size(10_000, 1_000);
  const tmp = tempDir();
  // Two rounds in opposite order, each side's best kept: whichever runs second inherits the
  // first one's heap and page cache, so a single fixed order biases the ratio.
  const rounds = SMOKE ? 1 : 2;
  let tsMs = Infinity;
  let rawMs = Infinity;
  const tsclawSide = async (r: number) => {
    gc();
    const claw = createClaw({ db: join(tmp.dir, `claw-${r}.db`), project: "bench" });
    const policy = createAccessPolicy({ token: TOKEN });
    const http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy });
    const ws = attachWebSocket(claw, http.server, { policy });
    try {
      tsMs = Math.min(
        tsMs,
        await fanOut(`${http.url.replace("http", "ws")}/ws`, "tsclaw", events, () => publishTsclaw(claw, events)),
      );
    } finally {
      ws.close();
      await http.close();
      await claw.close();
    }
  };
  const rawSide = async () => {
    gc();
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", perMessageDeflate: false });
    await new Promise((r) => wss.once("listening", r));
    try {
      rawMs = Math.min(
        rawMs,
        await fanOut(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, "raw", events, () =>
          publishRaw(wss, events),
        ),
      );
    } finally {
      for (const c of wss.clients) c.terminate();
      wss.close();
    }
  };
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      await tsclawSide(r);
      await rawSide();
    } else {
      await rawSide();
      await tsclawSide(r);
    }
  }
  tmp.remove();
  const frames = events * CLIENTS;
  return [
    row({
      scenario: "WebSocket fan-out, 100 subscribers",
      unit: "frames/s",
      tsclaw: (frames / tsMs) * 1000,
      baseline: (frames / rawMs) * 1000,
      target: { op: ">=", value: 0.8 },
      note: `${events} events × ${CLIENTS} subscribers; tsclaw commits each event (durable) before fan-out; raw = ws broadcast of the same frame shape`,
    }),
  ];
}
