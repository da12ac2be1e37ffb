/**
 * Publish load in its own process: `clients` connections, each keeping `inflight` publishes
 * outstanding until `total` are acknowledged. Prints one JSON line {ok, errors, ms, p50, p99}
 * (latencies in ms, from sending a publish to its acknowledgement).
 *   ws <wsUrl> <token>   tsclaw `out` over the WebSocket bridge
 *   redis <host:port>    Redis XADD (the reply is the acknowledgement)
 *   nats <host:port>     NATS JetStream publish (the stream's ack is the acknowledgement)
 * Usage: node --import tsx bench/peer-load.ts <mode> <target> <token|-> <total> <clients> <inflight>
 */

import { jetstream } from "@nats-io/jetstream";
import { connect as natsConnect } from "@nats-io/transport-node";
import { Redis } from "ioredis";
import WebSocket from "ws";
import { percentile } from "./measure.js";
import { samplePayload } from "./raw-db.js";

const [mode, target, token, totalArg, clientsArg, inflightArg] = process.argv.slice(2);
const total = Number(totalArg);
const clients = Number(clientsArg);
const inflight = Number(inflightArg);

/** A connection that can publish one event and resolve on its acknowledgement. */
type Publisher = { publish(i: number): Promise<void>; close(): Promise<void> | void };

async function wsPublisher(): Promise<Publisher> {
  const ws = new WebSocket(target!, { perMessageDeflate: false, headers: { authorization: `Bearer ${token}` } });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const waiting = new Map<number, { resolve(): void; reject(e: Error): void }>();
  let nextId = 0;
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as { id: number; ok: boolean; error?: { code: string } };
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.ok) w.resolve();
    else w.reject(new Error(msg.error?.code ?? "error"));
  });
  return {
    publish: (i) =>
      new Promise<void>((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        ws.send(JSON.stringify({ op: "out", args: { bus: "pub", payload: samplePayload(i) }, id }));
      }),
    close: () => ws.close(),
  };
}

async function redisPublisher(): Promise<Publisher> {
  const [host, port] = target!.split(":");
  const r = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 0 });
  await r.connect();
  return {
    publish: async (i) => {
      await r.xadd("bench", "*", "payload", JSON.stringify(samplePayload(i)));
    },
    close: async () => void (await r.quit()),
  };
}

async function natsPublisher(): Promise<Publisher> {
  const nc = await natsConnect({ servers: target! });
  const js = jetstream(nc);
  return {
    publish: async (i) => {
      // 5 000 acks in flight on a loaded machine outlast the client's 5 s default.
      await js.publish("bench.pub", JSON.stringify(samplePayload(i)), { timeout: 60_000 });
    },
    close: () => nc.close(),
  };
}

const open = mode === "ws" ? wsPublisher : mode === "redis" ? redisPublisher : mode === "nats" ? natsPublisher : null;
if (!open) throw new Error(`unknown mode ${mode}`);
const pubs = await Promise.all(Array.from({ length: clients }, () => open()));

let next = 0;
let ok = 0;
let errors = 0;
let firstError = "";
const latencies: number[] = [];
const t0 = performance.now();
await Promise.all(
  pubs.flatMap((p) =>
    Array.from({ length: inflight }, async () => {
      while (next < total) {
        const i = next++;
        const s = performance.now();
        try {
          await p.publish(i);
          ok++;
        } catch (err) {
          errors++;
          firstError ||= (err as Error).message;
        }
        latencies.push(performance.now() - s);
      }
    }),
  ),
);
const ms = performance.now() - t0;
await Promise.all(pubs.map((p) => p.close()));
process.stdout.write(
  `${JSON.stringify({ ok, errors, firstError, ms, p50: percentile(latencies, 50), p99: percentile(latencies, 99) })}\n`,
);
process.exit(0);
