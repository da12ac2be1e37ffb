/** Bus operations: out, read, subscribe, unsubscribe, list_buses, trim_bus. */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { busNameSchema, DEFAULT_BUS } from "../bus/bus-name.js";
import { busEventSchema, busInfoSchema, outAckSchema, seqSchema, subscribeArgsSchema } from "../bus/bus-schemas.js";
import { toBusEvent } from "../bus/bus-service.js";
import type { StoredEvent } from "../bus/event-store.js";
import { deliverToSink } from "../bus/frame-sink.js";
import { PAGE_EVENTS } from "../bus/page.js";
import type { Subscription } from "../bus/subscription.js";
import { ClawError } from "../errors.js";
import { defineOp } from "../registry.js";

/** A bus event. */
export const eventSchema = busEventSchema;

export const outOp = defineOp({
  name: "out",
  group: "bus",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  summary: "Publish one event (any JSON value) to a bus; returns after it is committed.",
  notes:
    "Concurrent `out` calls share one transaction (group commit). The returned `seq` is the event's position on its bus.",
  input: z
    .object({
      bus: busNameSchema.default(DEFAULT_BUS).describe('Bus name. Default: "thebus"'),
      payload: z.unknown().describe("Any JSON value (size-limited, 1 MiB by default)"),
    })
    .strict(),
  output: outAckSchema,
  example: { bus: "thebus", payload: { hello: "world" } },
  errors: ["payload_too_large"],
  handle: "bus.out",
  handler: (args, { services }) => services.bus.out(args.bus, args.payload),
});

export const readOp = defineOp({
  name: "read",
  group: "bus",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "Read events after a cursor; with waitMs, long-poll until one arrives.",
  notes:
    "Pass the returned `next` as `after` to continue. `lastSeq` is the bus's newest seq. A gap between `after` and the first returned seq means those events were trimmed. A page holds at most `limit` events and at most 4 MiB of event text (always at least one event), so `next < lastSeq` with a full page just means: read again. A read sees every `out` called before it, even one still waiting for its group commit.",
  input: z
    .object({
      bus: busNameSchema.default(DEFAULT_BUS).describe('Bus name. Default: "thebus"'),
      after: seqSchema.default(0).describe("Return events with seq > after. Default: 0"),
      limit: z
        .number()
        .int()
        .min(1)
        .max(PAGE_EVENTS)
        .default(100)
        .describe("Max events, 1-1000 (a page also stops at 4 MiB). Default: 100"),
      waitMs: z
        .number()
        .int()
        .min(0)
        .max(600_000)
        .default(0)
        .describe("When nothing is there yet, wait up to this long for an event. Default: 0"),
    })
    .strict(),
  output: z.object({
    bus: z.string(),
    events: z.array(eventSchema),
    lastSeq: z.number().int().describe("The bus's newest seq"),
    next: z.number().int().describe("Cursor to pass as `after` next time"),
  }),
  example: { bus: "thebus", after: 0, limit: 10 },
  handle: "bus.read",
  handler: async (args, { services, signal }) => {
    const stored = await services.bus.read(args.bus, args.after, args.limit, args.waitMs, signal);
    return {
      bus: args.bus,
      events: stored.map(toBusEvent),
      lastSeq: services.bus.lastSeq(args.bus),
      next: stored.length > 0 ? stored[stored.length - 1]!.seq : args.after,
    };
  },
});

/** A frame pushed to a streaming connection for each event of a subscription. */
export function eventFrameJson(sub: string, e: StoredEvent): string {
  return `{"event":"bus","sub":${JSON.stringify(sub)},"bus":${JSON.stringify(e.bus)},"seq":${e.seq},"ts":${e.ts},"payload":${e.payloadJson}}`;
}

export const subscribeOp = defineOp({
  name: "subscribe",
  group: "bus",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "Stream a bus's events to this connection (WebSocket, stdio): backlog after `after`, then live.",
  notes:
    'Each event arrives as a frame `{"event": "bus", "sub", "bus", "seq", "ts", "payload"}`, in seq order, with no gap or duplicate between backlog and live. Without `after`, only new events. Over HTTP use `read` with `waitMs` or `GET /bus/<name>/events` (SSE).',
  input: subscribeArgsSchema,
  output: z.object({
    sub: z.string().describe("Subscription id, for unsubscribe"),
    bus: z.string(),
    lastSeq: z.number().int(),
  }),
  example: { bus: "thebus", after: 0 },
  errors: ["unsupported_on_transport", "too_many_requests"],
  streamingOnly: true,
  handle: null,
  handler: (args, { services, connection }) => {
    if (!connection) {
      throw new ClawError(
        "unsupported_on_transport",
        "subscribe streams events and needs WebSocket or stdio; over HTTP use read with waitMs, or GET /bus/<name>/events (SSE)",
      );
    }
    if (connection.subscriptions.size >= connection.maxSubscriptions) {
      throw new ClawError(
        "too_many_requests",
        `this connection already has ${connection.subscriptions.size} subscriptions (limit ${connection.maxSubscriptions})`,
        { limit: connection.maxSubscriptions },
      );
    }
    const sub = `sub_${randomUUID().slice(0, 8)}`;
    const lastSeq = services.bus.lastSeq(args.bus);
    let subscription: Subscription | undefined;
    const sink = {
      write: (frame: string) => connection.send(frame),
      congested: () => connection.congested(),
      onDrain: (fn: () => void) => connection.onDrain(fn),
    };
    const deliver = deliverToSink(
      sink,
      (e) => eventFrameJson(sub, e),
      () => subscription?.resume(),
    );
    subscription = services.bus.subscribe(args.bus, args.after, deliver);
    connection.subscriptions.set(sub, () => subscription?.close());
    return { sub, bus: args.bus, lastSeq };
  },
});

export const unsubscribeOp = defineOp({
  name: "unsubscribe",
  group: "bus",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  summary: "Stop a subscription of this connection.",
  input: z.object({ sub: z.string().describe("The id returned by subscribe") }).strict(),
  output: z.object({ ok: z.boolean().describe("False when no such subscription existed") }),
  example: { sub: "sub_1234abcd" },
  handle: null,
  handler: (args, { connection }) => {
    const cancel = connection?.subscriptions.get(args.sub);
    if (!cancel) return { ok: false };
    cancel();
    connection!.subscriptions.delete(args.sub);
    return { ok: true };
  },
});

export const listBusesOp = defineOp({
  name: "list_buses",
  group: "bus",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "List every bus with its first and last seq and event count.",
  input: z.object({}).strict(),
  output: z.object({ buses: z.array(busInfoSchema) }),
  example: {},
  handle: "bus.list",
  handler: (_args, { services }) => ({ buses: services.bus.store.list() }),
});

export const trimBusOp = defineOp({
  name: "trim_bus",
  group: "bus",
  flags: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  summary: "Delete old events of a bus: keep the newest `keepLast`, and/or drop those before `beforeTs`.",
  notes: "Seqs are never reused: after trimming, new events continue from the bus's last seq.",
  input: z
    .object({
      bus: busNameSchema.describe("Bus name"),
      keepLast: z.number().int().min(0).optional().describe("Keep this many newest events"),
      beforeTs: z.number().optional().describe("Delete events committed before this epoch-ms time"),
    })
    .strict()
    .refine((a) => a.keepLast !== undefined || a.beforeTs !== undefined, {
      message: "give keepLast, beforeTs or both",
      path: ["keepLast"],
    }),
  output: z.object({ deleted: z.number().int() }),
  example: { bus: "thebus", keepLast: 1000 },
  handle: "bus.trim",
  handler: (args, { services }) => ({ deleted: services.bus.store.trim(args.bus, args) }),
});

/** Bus operations, in catalog order. */
export const busOps = [outOp, readOp, subscribeOp, unsubscribeOp, listBusesOp, trimBusOp] as const;
