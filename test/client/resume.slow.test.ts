/**
 * The remote client's subscriptions survive everything a connection can go through: a subscriber
 * (callback and iterator) sees 5 000 events exactly once and in seq order while, with events
 * published throughout, its socket is dropped, the server is killed with SIGKILL and restarted on
 * the same port and database, and the server cuts it with 4008 as a slow consumer. Every phase is
 * triggered by how far publishing got, never by a clock, and the outcome is compared with what
 * the bus holds at the end.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import WebSocket from "ws";
import { connectClaw } from "../../src/client.js";
import type { BusEvent } from "../../src/index.js";
import { readAll, type ServeProcess, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";

// Each disruption below comes 1 000 acknowledged events after the previous one, with all 32
// publishers in flight when it lands. What a resume replays is what was published while the client
// was away (and, after the 4008, the padded events: several 4 MiB pages), which the total does not
// change: 10 000 events (the count before) cost twice the time for the same three disruptions.
const TARGET = 5_000;
const BUS = "resume";
const WORKERS = 32;
const PAD = 256 * 1024;

let server: ServeProcess | undefined;
afterEach(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) await server.kill9();
  server = undefined;
});

/** The client's sockets, in order of creation, with the close code each one ended with. */
const sockets: WebSocket[] = [];
const closeCodes: number[] = [];
class TrackedSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    sockets.push(this);
    this.on("close", (code) => closeCodes.push(code));
  }
}

/** Rejected with a publisher's unexpected error: every wait below stops on it instead of waiting on. */
let failPublishing!: (err: unknown) => void;
const publishingFailed = new Promise<never>((_, reject) => (failPublishing = reject));

/** Waits until `cond` holds (vi.waitFor, bounded by the test's own timeout), or a publisher fails. */
function until(cond: () => boolean, what: string): Promise<void> {
  const held = vi.waitFor(() => expect(cond(), what).toBe(true), { timeout: 600_000, interval: 10 });
  return Promise.race([held, publishingFailed]);
}

/**
 * Bytes past which a paused reader's server must have cut it: what the kernel can buffer at
 * most (the largest TCP send and receive buffers), the server's 4 MiB mark, and 4 MiB more.
 * (On loopback the kernel takes far less than its maximum: the cut comes after a few MiB.)
 */
function bytesToForceCut(): number {
  const max = (file: string) => Number(readFileSync(file, "utf8").trim().split(/\s+/)[2]);
  const mark = 4 * 1024 * 1024;
  try {
    return max("/proc/sys/net/ipv4/tcp_wmem") + max("/proc/sys/net/ipv4/tcp_rmem") + 2 * mark;
  } catch {
    return 64 * 1024 * 1024 + 2 * mark;
  }
}

test("a client subscriber sees 5 000 events once, in order, across a dropped socket, kill -9 and restart, and a 4008", async () => {
  const db = join(tempDir("tsclaw-resume-"), "claw.db");
  server = await startServe(db);
  const url = server.url;
  const port = new URL(url).port;
  const claw = await connectClaw({ url, token: server.token, WebSocket: TrackedSocket });

  const viaCallback: BusEvent[] = [];
  const unsubscribe = claw.bus.subscribe({ bus: BUS, after: 0 }, (e) => viaCallback.push(e));
  const viaIterator: BusEvent[] = [];
  const stream = claw.bus.subscribe({ bus: BUS, after: 0 });
  const iterated = (async () => {
    for await (const e of stream) viaIterator.push(e);
  })();

  // Publishers: each `out` either gets its ack or fails because the server is away, and is then
  // tried again (as a new event: one that failed may still have been committed).
  const acked = new Map<number, string>();
  let maxAcked = 0;
  let padUntil = 0; // while padded bytes published < padUntil, payloads carry PAD bytes
  let padded = 0;
  let failures = 0;
  const workers = Array.from({ length: WORKERS }, async (_, w) => {
    for (let n = 0; maxAcked < TARGET; n++) {
      const pad = padded < padUntil ? "x".repeat(PAD) : undefined;
      if (pad) padded += PAD;
      const id = `${w}:${n}`;
      try {
        const ack = await claw.bus.out({ bus: BUS, payload: pad ? { id, pad } : { id } });
        acked.set(ack.seq, id);
        maxAcked = Math.max(maxAcked, ack.seq);
      } catch (err) {
        // Only "the server is away" may happen; anything else ends the test with its error.
        const code = (err as { code?: string }).code;
        if (!["connection_failed", "shutting_down", "starting", "storage_unavailable"].includes(code ?? "")) {
          failPublishing(err);
          throw err;
        }
        failures++;
        await new Promise((r) => setTimeout(r, 50)); // a back-off before the retry, not a wait for a condition
      }
    }
  });

  // 1. A dropped socket: the client's connection dies without a close handshake.
  await until(() => maxAcked >= 1000 && viaCallback.length > 0, "1 000 events acknowledged and one seen");
  const dropped = sockets.length;
  sockets[dropped - 1]!.terminate();
  await until(() => sockets.length > dropped && sockets.at(-1)!.readyState === WebSocket.OPEN, "a new socket");

  // 2. kill -9 of the server while publishing, and a restart on the same port and database.
  await until(() => maxAcked >= 2000, "2 000 events acknowledged");
  const beforeKill = sockets.length;
  await server.kill9();
  server = await startServe(db, ["--listen", `127.0.0.1:${port}`]);
  expect(server.url).toBe(url);
  await until(
    () => sockets.length > beforeKill && sockets.at(-1)!.readyState === WebSocket.OPEN,
    "a socket to the restarted server",
  );

  // 3. A slow consumer: the client stops reading while large events are published, until the
  // server's send queue must have passed its mark; then it reads again and sees the 4008.
  await until(() => maxAcked >= 3000, "3 000 events acknowledged");
  const slow = sockets.at(-1)!;
  slow.pause();
  padUntil = bytesToForceCut();
  await until(() => padded >= padUntil, "the padded bytes published");
  slow.resume();
  await until(() => closeCodes.includes(4008), "the 4008 close");

  await Promise.all(workers);
  const last = (await claw.bus.read({ bus: BUS, after: 0, limit: 1 })).lastSeq;
  expect(last).toBeGreaterThanOrEqual(TARGET);
  await until(() => viaCallback.length >= last && viaIterator.length >= last, "every event seen both ways");
  await unsubscribe();
  stream.close();
  await iterated;
  await claw.close();

  // Every event exactly once, in order, in both forms; the same events the bus holds.
  const seqs = Array.from({ length: last }, (_, i) => i + 1);
  expect(viaCallback.map((e) => e.seq)).toEqual(seqs);
  expect(viaIterator.map((e) => e.seq)).toEqual(seqs);
  const stored = await readAll(server, BUS);
  expect(stored.map((e) => e.seq)).toEqual(seqs);
  const ids = stored.map((e) => e.payload.id as string);
  expect(viaCallback.map((e) => (e.payload as { id: string }).id)).toEqual(ids);
  expect(viaIterator.map((e) => (e.payload as { id: string }).id)).toEqual(ids);
  for (const [seq, id] of acked) expect(ids[seq - 1], `acknowledged seq ${seq}`).toBe(id);

  // The three disruptions happened: a terminated socket, the kill, and the slow-consumer cut.
  expect(closeCodes).toContain(1006);
  expect(closeCodes).toContain(4008);
  expect(sockets.length).toBeGreaterThanOrEqual(4);
  expect(failures).toBeGreaterThan(0); // publishing went on while the server was away
}, 600_000);
