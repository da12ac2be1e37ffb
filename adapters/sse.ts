/**
 * GET /bus/<name>/events: a bus as Server-Sent Events. `id:` is the seq, so a browser
 * EventSource resumes by itself after a drop (`Last-Event-ID`); `?after=N` starts after seq N;
 * without either only new events come. Comment lines keep proxies from closing an idle stream.
 * A slow client pauses its subscription (it catches up from storage on 'drain'), so memory stays
 * bounded; the subscription ends when the client goes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { busNameSchema } from "../src/bus/bus-name.js";
import type { StoredEvent } from "../src/bus/event-store.js";
import { deliverToSink, type FrameSink } from "../src/bus/frame-sink.js";
import type { Subscription } from "../src/bus/subscription.js";
import type { Claw } from "../src/claw.js";
import { DEFAULTS } from "../src/config/defaults.js";
import { ClawError } from "../src/errors.js";

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
 * An event's SSE block in three parts, written one after another: joining them would copy the
 * payload into a new string (the socket then copies it once more). JSON text never holds a raw
 * CR or LF, so one data line per event is safe.
 */
function frame(e: StoredEvent): string[] {
  return [
    `id: ${e.seq}\ndata: {"bus":${JSON.stringify(e.bus)},"seq":${e.seq},"ts":${e.ts},"payload":`,
    e.payloadJson,
    "}\n\n",
  ];
}

/** Streams a bus as SSE. Throws ClawError (before any byte is sent) for a bad name or cursor. */
export function handleSse(claw: Claw, req: IncomingMessage, res: ServerResponse, bus: string, url: URL): void {
  if (!busNameSchema.safeParse(bus).success) {
    throw new ClawError(
      "invalid_args",
      `bad bus name "${bus.slice(0, 60)}": a bus name is 1-200 characters of A-Z a-z 0-9 . _ : -`,
      { issues: [{ path: "bus", message: "bad bus name" }] },
    );
  }
  // Last-Event-ID wins: EventSource reconnects to the same URL, ?after included.
  const lastEventId = req.headers["last-event-id"];
  const after =
    parseCursor("Last-Event-ID", Array.isArray(lastEventId) ? lastEventId[0] : lastEventId) ??
    parseCursor("after", url.searchParams.get("after"));
  const interval = heartbeatMs(url);

  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.write(`retry: ${DEFAULTS.sseRetryMs}\n: tsclaw bus ${bus}, after ${after ?? claw.services.bus.lastSeq(bus)}\n\n`);

  // One write per event (never a page joined into one string). A client that falls behind
  // pauses its subscription, backlog or live; it re-reads from storage when the socket drains.
  let drainWaiters: (() => void)[] = [];
  const onDrain = () => {
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const w of waiters) w();
  };
  const sink: FrameSink<string[]> = {
    write: (parts) => {
      if (res.destroyed) return false;
      for (const part of parts) res.write(part);
      return true;
    },
    congested: () => res.writableLength > SSE_CONGESTED_BYTES,
    onDrain: (fn) => {
      drainWaiters.push(fn);
      if (res.writableLength <= SSE_CONGESTED_BYTES) setImmediate(onDrain);
    },
    pauseLive: true,
  };
  let subscription: Subscription | undefined;
  subscription = claw.services.bus.subscribe(
    bus,
    after,
    deliverToSink(sink, frame, () => subscription?.resume()),
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
    subscription?.close();
    res.off("drain", onDrain);
    streams.delete(end);
    if (!res.writableEnded) res.end();
  };
  streams.add(end);
  // res (not req) 'close': since Node 16 a request's 'close' fires once its body is read.
  res.on("close", end);
}
