/**
 * Fan-out latency against the peers: one publisher, 100 subscribers, publish → delivery p50/p99
 * measured on one clock in a separate client process (peer-fanout-clients.ts): tsclaw over
 * WebSocket (publish with `out` on a socket, durable before fan-out) vs Redis XREAD BLOCK vs
 * JetStream ordered push consumers. Every path has the same hops: client → server → clients.
 */
import { jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect as natsConnect } from "@nats-io/transport-node";
import { childMessages, size, spawnBenchScript } from "./measure.js";
import { startNats } from "./peers/nats.js";
import { notInstalled, startOptional, stopAll } from "./peers/peer-rows.js";
import { startRedis } from "./peers/redis.js";
import { type Row, row } from "./table.js";
import { startBenchServer } from "./tsclaw-server.js";

const SUBSCRIBERS = 100;
const INTERVAL_MS = 4;

interface Fan {
  p50: number;
  p99: number;
  samples: number;
}

async function fan(mode: string, target: string, token: string, events: number): Promise<Fan> {
  const child = spawnBenchScript("peer-fanout-clients.ts", [
    mode,
    target,
    token,
    String(SUBSCRIBERS),
    String(events),
    String(INTERVAL_MS),
  ]);
  const msgs = childMessages(child);
  await msgs.next((m) => m.ready === true, 120_000);
  return (await msgs.next((m) => m.done === true, 180_000)) as Fan;
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const events = size(1500, 100);
  const server = await startBenchServer();
  const redis = await startOptional(startRedis);
  const nats = await startOptional(startNats);
  try {
    if (nats.peer) {
      const nc = await natsConnect({ servers: nats.peer.url });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: "FAN", subjects: ["fan.>"], storage: StorageType.File });
      await nc.close();
    }
    const ts = await fan("tsclaw", server.wsUrl, server.token, events);
    const rd = redis.peer ? await fan("redis", `${redis.peer.host}:${redis.peer.port}`, "-", events) : null;
    const js = nats.peer ? await fan("nats", nats.peer.url, "-", events) : null;
    const note = `${events} events, one every ${INTERVAL_MS} ms, ${SUBSCRIBERS} subscribers; first 10% not counted; tsclaw p50 ${ts.p50.toFixed(2)} / p99 ${ts.p99.toFixed(2)} ms`;
    const rows: Row[] = [];
    for (const q of [50, 99] as const) {
      const key = q === 50 ? "p50" : "p99";
      const scenario = (peer: string) => `fan-out ${key}: tsclaw WS vs ${peer}`;
      rows.push(
        rd
          ? row({
              scenario: scenario("Redis XREAD BLOCK"),
              unit: "ms",
              tsclaw: ts[key],
              baseline: rd[key],
              target: null,
              ratioNote: "time tsclaw ÷ peer (lower is better)",
              note: q === 50 ? note : undefined,
            })
          : notInstalled(scenario("Redis XREAD BLOCK"), "ms", null, redis.missing!, ts[key]),
        js
          ? row({
              scenario: scenario("JetStream push consumers"),
              unit: "ms",
              tsclaw: ts[key],
              baseline: js[key],
              target: null,
              ratioNote: "time tsclaw ÷ peer (lower is better)",
              note: q === 50 ? "JetStream: ordered push consumers, file storage, acked publish" : undefined,
            })
          : notInstalled(scenario("JetStream push consumers"), "ms", null, nats.missing!, ts[key]),
      );
    }
    return rows;
  } finally {
    await server.close();
    await stopAll([redis, nats]);
  }
}
