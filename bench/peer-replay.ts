/**
 * Replay against the peers: N stored events read back from the start, payloads parsed. tsclaw
 * `read` in-process (pages of 1 000) vs Redis XRANGE in pages of 1 000 vs a JetStream ordered
 * consumer delivering the whole stream. Each store is filled first (not timed) and read back
 * partly to warm up; tsclaw's pass is the faster of two, each peer's one full pass (a pass of
 * a peer takes several times longer, and the bench stays well under 15 minutes). Redis and NATS answer over loopback TCP (that is how they are used);
 * tsclaw is embedded, so its read has no network hop: that is the point of the comparison.
 */

import { join } from "node:path";
import { DeliverPolicy, jetstream, jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect as natsConnect } from "@nats-io/transport-node";
import { Redis } from "ioredis";
import { type Claw, createClaw } from "../src/index.js";
import { now, pool, size, tempDir } from "./measure.js";
import { type RunningNats, startNats } from "./peers/nats.js";
import { notInstalled, startOptional, stopAll } from "./peers/peer-rows.js";
import { type RunningRedis, startRedis } from "./peers/redis.js";
import { samplePayload } from "./raw-db.js";
import { type Row, row } from "./table.js";

const PAGE = 1000;

async function tsclawReplay(claw: Claw, limit = Infinity): Promise<{ ms: number; count: number }> {
  const t0 = now();
  let after = 0;
  let count = 0;
  while (count < limit) {
    const page = await claw.bus.read({ bus: "replay", after, limit: PAGE });
    if (page.events.length === 0) break;
    for (const e of page.events) count += (e.payload as { i: number }).i >= 0 ? 1 : 0;
    after = page.next;
  }
  return { ms: now() - t0, count };
}

async function redisFill(r: Redis, n: number): Promise<void> {
  for (let i = 0; i < n; i += PAGE) {
    const p = r.pipeline();
    for (let j = i; j < Math.min(n, i + PAGE); j++) p.xadd("replay", "*", "payload", JSON.stringify(samplePayload(j)));
    await p.exec();
  }
}

async function redisReplay(r: Redis, limit = Infinity): Promise<{ ms: number; count: number }> {
  const t0 = now();
  let start = "-";
  let count = 0;
  while (count < limit) {
    const entries = await r.xrange("replay", start, "+", "COUNT", PAGE);
    if (entries.length === 0) break;
    for (const [, fields] of entries) count += (JSON.parse(fields[1]!) as { i: number }).i >= 0 ? 1 : 0;
    start = `(${entries[entries.length - 1]![0]}`;
  }
  return { ms: now() - t0, count };
}

async function natsFill(url: string, n: number): Promise<void> {
  const nc = await natsConnect({ servers: url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "REPLAY", subjects: ["replay.>"], storage: StorageType.File });
  // Plain publishes into the stream's subject are stored without a per-message ack: the
  // fastest fill. Then wait until the stream holds them all.
  for (let i = 0; i < n; i++) {
    nc.publish("replay.x", JSON.stringify(samplePayload(i)));
    if (i % 10_000 === 9_999) await nc.flush();
  }
  await nc.flush();
  for (let k = 0; (await jsm.streams.info("REPLAY")).state.messages < n; k++) {
    if (k > 600) throw new Error("JetStream did not store every replay message");
    await new Promise((r) => setTimeout(r, 100));
  }
  await nc.close();
}

async function natsReplay(url: string, n: number): Promise<{ ms: number; count: number }> {
  const nc = await natsConnect({ servers: url });
  try {
    const t0 = now();
    const c = await jetstream(nc).consumers.get("REPLAY", { deliver_policy: DeliverPolicy.All });
    let count = 0;
    await new Promise<void>((resolve, reject) => {
      c.consume({
        max_messages: 10_000,
        callback: (m) => {
          if ((m.json() as { i: number }).i >= 0) count++;
          if (count === n) resolve();
        },
      }).catch(reject);
    });
    return { ms: now() - t0, count };
  } finally {
    await nc.close();
  }
}

const best = <T extends { ms: number }>(a: T, b: T) => (b.ms < a.ms ? b : a);

async function measureRedis(peer: RunningRedis, n: number): Promise<{ ms: number; count: number }> {
  const r = new Redis({ host: peer.host, port: peer.port });
  try {
    await redisFill(r, n);
    await redisReplay(r, 100_000); // warm: JIT and the client's buffers
    return await redisReplay(r);
  } finally {
    r.disconnect();
  }
}

async function measureNats(peer: RunningNats, n: number): Promise<{ ms: number; count: number }> {
  await natsFill(peer.url, n);
  await natsReplay(peer.url, Math.min(n, 100_000)); // warm: JIT and the client's buffers
  return await natsReplay(peer.url, n);
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const n = size(1_000_000, 20_000);
  const tmp = tempDir();
  const claw = createClaw({ db: join(tmp.dir, "claw.db"), project: "bench" });
  const redis = await startOptional(startRedis);
  const nats = await startOptional(startNats);
  try {
    await pool(5000, n, (i) => claw.bus.out({ bus: "replay", payload: samplePayload(i) }));
    await tsclawReplay(claw, Math.min(n, 100_000)); // warm, as for the peers
    const ts = best(await tsclawReplay(claw), await tsclawReplay(claw));
    const rd = redis.peer ? await measureRedis(redis.peer, n) : null;
    const js = nats.peer ? await measureNats(nats.peer, n) : null;
    for (const [name, r] of [
      ["tsclaw", ts],
      ["redis", rd],
      ["nats", js],
    ] as const)
      if (r && r.count !== n) throw new Error(`${name} replay counted ${r.count}, expected ${n}`);
    const rate = (r: { ms: number }) => (n / r.ms) * 1000;
    const redisScenario = "replay: tsclaw read vs Redis XRANGE pages";
    const natsScenario = "replay: tsclaw read vs JetStream ordered consumer";
    return [
      rd
        ? row({
            scenario: redisScenario,
            unit: "events/s",
            tsclaw: rate(ts),
            baseline: rate(rd),
            target: null,
            note: `${n} events, payloads parsed; tsclaw in-process read, pages of ${PAGE}; Redis XRANGE COUNT ${PAGE} over loopback`,
          })
        : notInstalled(redisScenario, "events/s", null, redis.missing!, rate(ts)),
      js
        ? row({
            scenario: natsScenario,
            unit: "events/s",
            tsclaw: rate(ts),
            baseline: rate(js),
            target: null,
            note: "JetStream file storage, ordered pull consumer (consume, 10 000 buffered) over loopback",
          })
        : notInstalled(natsScenario, "events/s", null, nats.missing!, rate(ts)),
    ];
  } finally {
    await claw.close();
    tmp.remove();
    await stopAll([redis, nats]);
  }
}
