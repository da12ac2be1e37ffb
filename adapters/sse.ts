/**
 * GET /bus/<name>/events: a bus as Server-Sent Events. `id:` is the seq, so a browser
 * EventSource resumes by itself after a drop (`Last-Event-ID`); `?after=N` starts after seq N;
 * without either only new events come. Comment lines keep proxies from closing an idle stream.
 * The stream is the `subscribe` operation's, opened through the registry; a slow client pauses
 * it, live events included (it catches up from storage on 'drain'), so memory stays bounded; it
 * closes when the client goes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ScopedGrant } from "../src/access/scoped-tokens.js";
import type { StoredEvent } from "../src/bus/event-store.js";
import type { Claw } from "../src/claw/claw.js";
import { DEFAULTS } from "../src/config/defaults.js";
import { ClawError } from "../src/core/errors.js";
import { pipeStream } from "../src/core/stream.js";
import { eventFrameParts } from "../src/core/wire.js";

/** Heartbeat interval when the client gives none (`?heartbeat=<seconds>`, 1–300). */
export const DEFAULT_SSE_HEARTBEAT_MS = DEFAULTS.sseHeartbeatMs;

/** Queued bytes past which a stream's delivery pauses until the socket drains. */
const SSE_CONGESTED_BYTES = 1024 * 1024;

const open = new WeakMap<Claw, Set<() => void>>();

/** Ends every open SSE stream of `claw` (at shutdown, so the HTTP server can close). */
export function closeSseStreams(claw: Claw): void {
  const set = open.get(claw);
  if (!set) return;
  for (const end of [...set]) end();
}

function parseCursor(name: string, text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || text === "") return undefined;
  if (!/^\d{1,15}$/.test(text.trim())) {
    throw new ClawError("invalid_args", `${name} must be a non-negative integer seq, not "${text.slice(0, 40)}"`, {
      issues: [{ path: name, message: "not a seq" }],
    });
  }
  return Number(text.trim());
}

function heartbeatMs(url: URL): number {
  const v = url.searchParams.get("heartbeat");
  if (v === null) return DEFAULT_SSE_HEARTBEAT_MS;
  const s = Number(v);
  if (!Number.isFinite(s) || s < 1 || s > 300)
    throw new ClawError("invalid_args", "heartbeat is seconds between comments, 1-300", {
      issues: [{ path: "heartbeat", message: "1-300" }],
    });
  return s * 1000;
}

/**
 * Writes an event's SSE block as the wire's frame parts, one after another: joining them would
 * copy the payload into a new string (the socket then copies it once more). JSON text never
 * holds a raw CR or LF, so one data line per event is safe.
 */
function writeEvent(res: ServerResponse, e: StoredEvent): void {
  const [head, payload, tail] = eventFrameParts(e);
  res.write(`id: ${e.seq}\ndata: ${head}`);
  res.write(payload);
  res.write(`${tail}\n\n`);
}

/**
 * Streams a bus as SSE. Throws ClawError (before any byte is sent) for a bad name or cursor, or
 * a bus outside the scoped token's reach; a stream opened with a scoped token ends when it is revoked.
 */
export function handleSse(
  claw: Claw,
  req: IncomingMessage,
  res: ServerResponse,
  bus: string,
  url: URL,
  grant?: ScopedGrant,
): void {
  // Last-Event-ID wins: EventSource reconnects to the same URL, ?after included.
  const lastEventId = req.headers["last-event-id"];
  const after =
    parseCursor("Last-Event-ID", Array.isArray(lastEventId) ? lastEventId[0] : lastEventId) ??
    parseCursor("after", url.searchParams.get("after"));
  const interval = heartbeatMs(url);
  // Opened (and its arguments checked) before any byte is sent; its cursor is fixed from here.
  const { head, source } = claw.openStream("subscribe", { bus, after }, { transport: "http", grant });

  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.write(`retry: ${DEFAULTS.sseRetryMs}\n`);

  // One write per event (never a page joined into one string). A client that falls behind
  // pauses its subscription, backlog or live; it re-reads from storage when the socket drains.
  let drainWaiters: (() => void)[] = [];
  const onDrain = () => {
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const w of waiters) w();
  };
  // The head (the cursor a stream without `after` starts from) may need storage: the banner
  // names it, and events follow it.
  head.then(
    (h) => {
      if (source.closed) return;
      res.write(`: tsclaw bus ${bus}, after ${after ?? h.lastSeq}\n\n`);
      pipeStream(source, {
        write: (e) => {
          if (res.destroyed) return false;
          writeEvent(res, e);
          return true;
        },
        congested: () => res.writableLength > SSE_CONGESTED_BYTES,
        onDrain: (fn) => {
          drainWaiters.push(fn);
          if (res.writableLength <= SSE_CONGESTED_BYTES) setImmediate(onDrain);
        },
        pauseLive: true,
      });
    },
    () => end(), // storage failed before the first event: the client reconnects after `retry`
  );
  res.on("drain", onDrain);
  const heartbeat = setInterval(() => {
    if (res.writableLength === 0) res.write(`: ping ${Date.now()}\n\n`);
  }, interval);
  heartbeat.unref();

  const streams = open.get(claw) ?? new Set();
  open.set(claw, streams);
  const end = () => {
    clearInterval(heartbeat);
    source.close();
    res.off("drain", onDrain);
    streams.delete(end);
    grant?.signal.removeEventListener("abort", end);
    if (!res.writableEnded) res.end();
  };
  streams.add(end);
  grant?.signal.addEventListener("abort", end, { once: true });
  // res (not req) 'close': since Node 16 a request's 'close' fires once its body is read.
  res.on("close", end);
}
