/**
 * Fan-out latency clients in their own process: one publisher and `subs` subscribers against
 * one server, on one clock. The publisher sends `events` events, one every `intervalMs`, each
 * carrying its send time; every subscriber parses each delivery and records now − sent.
 * Prints {"ready":true} once all subscribers are set, then {done, p50, p99, samples, received}.
 *   tsclaw <wsUrl> <token>  WebSocket `subscribe` to bus "fan", publish with `out` on its own socket
 *   redis <host:port>       each subscriber loops XREAD BLOCK on stream "fan"; publish is XADD
 *   nats <host:port>        each subscriber is an ordered push consumer of stream FAN (new
 *                           messages only); publish is a JetStream publish (acked)
 * Usage: node --import tsx bench/peer-fanout-clients.ts <mode> <target> <token|-> <subs> <events> <intervalMs>
 */
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { connect as natsConnect } from "@nats-io/transport-node";
import { Redis } from "ioredis";
import WebSocket from "ws";
import { percentile } from "./measure.js";

const [mode, target, token, subsArg, eventsArg, intervalArg] = process.argv.slice(2);
const subs = Number(subsArg);
const events = Number(eventsArg);
const intervalMs = Number(intervalArg);
/** The first deliveries pay for JIT and buffers; they are not counted. */
const WARM = Math.floor(events / 10);

const samples: number[] = [];
let received = 0;
let finished = 0;
let onAllDone: () => void = () => {};
const allDone = new Promise<void>((r) => (onAllDone = r));

/** A subscriber's counter: records the latency of a delivery and notices when it has all. */
function counter(): (payload: { i: number; t: number }) => void {
  let count = 0;
  return (p) => {
    const at = performance.now();
    if (p.i >= WARM) samples.push(at - p.t);
    received++;
    if (++count === events && ++finished === subs) onAllDone();
  };
}

const [host, port] = (target ?? "").replace(/^wss?:\/\/|\/.*$/g, "").split(":");
const body = (i: number) =>
  JSON.stringify({ i, t: performance.now(), text: "the quick brown fox jumps over the lazy dog" });

type Side = { publish(i: number): Promise<unknown>; close(): Promise<void> | void };

async function wsOpen(): Promise<WebSocket> {
  const ws = new WebSocket(target!, { perMessageDeflate: false, headers: { authorization: `Bearer ${token}` } });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  return ws;
}

async function tsclawSide(): Promise<Side> {
  const sockets: WebSocket[] = [];
  await Promise.all(
    Array.from({ length: subs }, async () => {
      const ws = await wsOpen();
      sockets.push(ws);
      const count = counter();
      await new Promise<void>((subscribed) => {
        ws.on("message", (data) => {
          const msg = JSON.parse(String(data)) as { event?: string; payload?: { i: number; t: number }; id?: string };
          if (msg.event === "bus") count(msg.payload!);
          else if (msg.id === "s") subscribed();
        });
        ws.send(JSON.stringify({ op: "subscribe", args: { bus: "fan" }, id: "s" }));
      });
    }),
  );
  const pub = await wsOpen();
  sockets.push(pub);
  let id = 0;
  return {
    publish: async (i) => pub.send(`{"op":"out","args":{"bus":"fan","payload":${body(i)}},"id":${id++}}`),
    close: () => {
      for (const s of sockets) s.terminate();
    },
  };
}

async function redisSide(): Promise<Side> {
  const conns: Redis[] = [];
  let closing = false;
  for (let s = 0; s < subs; s++) {
    const r = new Redis({ host, port: Number(port), maxRetriesPerRequest: 0 });
    conns.push(r);
    const count = counter();
    let last = "$";
    const loop = async () => {
      while (!closing) {
        const res = (await r.xread("BLOCK", 0, "STREAMS", "fan", last).catch(() => null)) as
          | [string, [string, string[]][]][]
          | null;
        if (!res) continue;
        for (const [id, fields] of res[0]![1]) {
          last = id;
          count(JSON.parse(fields[1]!));
        }
      }
    };
    await r.ping(); // connected before the first XREAD, so "$" means "after now"
    void loop();
  }
  await new Promise((r) => setTimeout(r, 200)); // every XREAD has reached the server and blocks
  const pub = new Redis({ host, port: Number(port) });
  conns.push(pub);
  return {
    publish: (i) => pub.xadd("fan", "*", "payload", body(i)),
    close: () => {
      closing = true;
      for (const c of conns) c.disconnect();
    },
  };
}

async function natsSide(): Promise<Side> {
  const nc = await natsConnect({ servers: target! });
  const js = jetstream(nc);
  const conns = [nc];
  for (let s = 0; s < subs; s++) {
    const sc = await natsConnect({ servers: target! });
    conns.push(sc);
    const c = await jetstream(sc).consumers.getPushConsumer("FAN", { deliver_policy: DeliverPolicy.New });
    const count = counter();
    await c.consume({ callback: (m) => count(m.json()) });
  }
  await new Promise((r) => setTimeout(r, 200));
  return {
    publish: (i) => js.publish("fan.x", body(i), { timeout: 60_000 }),
    close: async () => {
      for (const c of conns) await c.close();
    },
  };
}

const side = mode === "tsclaw" ? await tsclawSide() : mode === "redis" ? await redisSide() : await natsSide();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
const t0 = performance.now();
const failures: string[] = [];
for (let i = 0; i < events; i++) {
  const due = t0 + i * intervalMs;
  const wait = due - performance.now();
  if (wait > 0.5) await new Promise((r) => setTimeout(r, wait));
  side.publish(i).catch((err: Error) => failures.push(err.message));
}
const timeout = setTimeout(() => {
  process.stderr.write(`fan-out ${mode}: ${received} of ${events * subs} deliveries after 60 s\n`);
  process.exit(1);
}, 60_000);
await allDone;
clearTimeout(timeout);
if (failures.length) throw new Error(`fan-out ${mode}: ${failures.length} publishes failed: ${failures[0]}`);
process.stdout.write(
  `${JSON.stringify({ done: true, p50: percentile(samples, 50), p99: percentile(samples, 99), samples: samples.length, received })}\n`,
);
await side.close();
process.exit(0);
