/**
 * Publish throughput against the peers, all in one run: tsclaw `out` in-process, over the
 * WebSocket bridge pipelined (50 clients × 100 in flight) and over POST /do (50 clients), vs
 * Redis XADD (50 clients, unpipelined and 100 in flight each; AOF everysec) and NATS JetStream
 * publish with acks (file storage). Network loads come from a separate process (peer-load.ts,
 * http-load.ts); the peers are started here and stopped at the end.
 */
import { jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect as natsConnect } from "@nats-io/transport-node";
import { tsclawOut } from "./bus.js";
import { SMOKE, size, spawnBenchScript, waitForMessage } from "./measure.js";
import { type RunningNats, startNats } from "./peers/nats.js";
import { notInstalled, startOptional, stopAll } from "./peers/peer-rows.js";
import { startRedis } from "./peers/redis.js";
import { type Row, row, type Target, unavailable } from "./table.js";
import { startBenchServer } from "./tsclaw-server.js";

const CLIENTS = 50;
const PIPELINE = 100;

interface Load {
  ok: number;
  errors: number;
  firstError?: string;
  ms: number;
  p50: number;
  p99: number;
}

async function load(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Load> {
  const child = spawnBenchScript(script, args, env);
  const r = (await waitForMessage(child, (m) => typeof m.ms === "number")) as Load;
  if (r.errors > 0) throw new Error(`${script} ${args[0]}: ${r.errors} failed (${r.firstError ?? ""})`);
  return r;
}

const perSec = (n: number, ms: number) => (n / ms) * 1000;

/** Keeps the faster of two loads. */
const best = (a: Load | undefined, b: Load) => (!a || b.ms < a.ms ? b : a);

async function createStream(nats: RunningNats): Promise<void> {
  const nc = await natsConnect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "BENCH", subjects: ["bench.>"], storage: StorageType.File });
  await nc.close();
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const n = size(50_000, 2_000);
  const nPost = size(10_000, 1_000);
  const nPipelined = size(100_000, 2_000);
  const rounds = SMOKE ? 1 : 2;
  const server = await startBenchServer();
  const redis = await startOptional(startRedis);
  const nats = await startOptional(startNats);
  try {
    if (nats.peer) await createStream(nats.peer);
    const redisAt = redis.peer ? `${redis.peer.host}:${redis.peer.port}` : "";
    const m: Record<string, Load | undefined> = {};
    let inProcMs = Infinity;
    const tsclawSide = async () => {
      inProcMs = Math.min(inProcMs, await tsclawOut(n));
      m.ws = best(
        m.ws,
        await load("peer-load.ts", ["ws", server.wsUrl, server.token, String(n), String(CLIENTS), String(PIPELINE)]),
      );
      m.post = best(
        m.post,
        await load("http-load.ts", [`${server.url}/do`, String(nPost), String(CLIENTS)], { BENCH_TOKEN: server.token }),
      );
    };
    // A peer whose load fails (e.g. acks timing out) loses its rows, not tsclaw's.
    const failed: Record<string, string> = {};
    const guard = async (peer: string, fn: () => Promise<void>) => {
      if (failed[peer]) return;
      try {
        await fn();
      } catch (err) {
        failed[peer] = (err as Error).message.slice(0, 160);
        process.stderr.write(`bench: ${peer} load failed: ${failed[peer]}\n`);
      }
    };
    const peerSide = async () => {
      await guard("redis", async () => {
        if (!redis.peer) return;
        m.xadd = best(m.xadd, await load("peer-load.ts", ["redis", redisAt, "-", String(n), String(CLIENTS), "1"]));
        m.xaddPipe = best(
          m.xaddPipe,
          await load("peer-load.ts", ["redis", redisAt, "-", String(nPipelined), String(CLIENTS), String(PIPELINE)]),
        );
      });
      await guard("nats", async () => {
        if (!nats.peer) return;
        m.js = best(
          m.js,
          await load("peer-load.ts", ["nats", nats.peer.url, "-", String(n), String(CLIENTS), String(PIPELINE)]),
        );
        m.js1 = best(
          m.js1,
          await load("peer-load.ts", ["nats", nats.peer.url, "-", String(nPost), String(CLIENTS), "1"]),
        );
      });
    };
    // Warm-up at small sizes (not in smoke runs: their figures mean nothing, and each warm-up
    // load is one more process to start), then rounds in alternating order; each side's best is kept.
    if (!SMOKE) {
      await tsclawOut(Math.min(n, 5000));
      await load("peer-load.ts", ["ws", server.wsUrl, server.token, "2000", String(CLIENTS), "10"]);
      await load("http-load.ts", [`${server.url}/do`, "500", String(CLIENTS)], { BENCH_TOKEN: server.token });
    }
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        await tsclawSide();
        await peerSide();
      } else {
        await peerSide();
        await tsclawSide();
      }
    }
    const inProc = perSec(n, inProcMs);
    const ws = perSec(n, m.ws!.ms);
    const post = perSec(nPost, m.post!.ms);
    const lat = (l: Load) => `p50 ${l.p50.toFixed(2)} / p99 ${l.p99.toFixed(2)} ms`;
    const vsRedis = (
      scenario: string,
      tsclaw: number,
      key: "xadd" | "xaddPipe",
      target: Target | null,
      note: string,
    ) =>
      failed.redis
        ? { ...unavailable(scenario, "events/s", target, `Redis load failed: ${failed.redis}`), tsclaw }
        : redis.peer
          ? row({
              scenario,
              unit: "events/s",
              tsclaw,
              baseline: key === "xadd" ? perSec(n, m.xadd!.ms) : perSec(nPipelined, m.xaddPipe!.ms),
              target,
              note: `${note}; Redis ${lat(m[key]!)}`,
            })
          : notInstalled(scenario, "events/s", target, redis.missing, tsclaw);
    const vsNats = (scenario: string, tsclaw: number, key: "js" | "js1", note: string) =>
      failed.nats
        ? { ...unavailable(scenario, "events/s", null, `JetStream load failed: ${failed.nats}`), tsclaw }
        : nats.peer
          ? row({
              scenario,
              unit: "events/s",
              tsclaw,
              baseline: key === "js" ? perSec(n, m.js!.ms) : perSec(nPost, m.js1!.ms),
              target: null,
              note: `${note}; JetStream ${lat(m[key]!)}`,
            })
          : notInstalled(scenario, "events/s", null, nats.missing, tsclaw);
    return [
      vsRedis(
        "publish: in-process out vs Redis XADD, 50 clients",
        inProc,
        "xadd",
        { op: ">=", value: 2 },
        `${n} events each; tsclaw 1 000 in flight in-process, durable (WAL, synchronous=NORMAL); Redis AOF everysec, 1 in flight per client`,
      ),
      vsRedis(
        "publish: WS pipelined out vs Redis XADD, 50 clients",
        ws,
        "xadd",
        { op: ">=", value: 1 },
        `tsclaw 50 WebSocket clients × 100 in flight, ${lat(m.ws!)}`,
      ),
      vsRedis(
        "publish: POST /do out vs Redis XADD, 50 clients",
        post,
        "xadd",
        null,
        `tsclaw ${nPost} requests, 50 keep-alive clients, ${lat(m.post!)}`,
      ),
      vsRedis(
        "publish: WS pipelined out vs Redis XADD pipelined",
        ws,
        "xaddPipe",
        null,
        `both 50 clients × 100 in flight; Redis ${nPipelined} events`,
      ),
      vsNats(
        "publish: WS pipelined out vs JetStream publish+ack",
        ws,
        "js",
        "both 50 clients × 100 in flight; JetStream file storage, each publish acked by the stream",
      ),
      vsNats(
        "publish: POST /do out vs JetStream publish+ack, 1 in flight",
        post,
        "js1",
        `both 50 clients, 1 in flight each; ${nPost} events`,
      ),
    ];
  } finally {
    await server.close();
    await stopAll([redis, nats]);
  }
}
