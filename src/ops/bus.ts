/** Bus operations: out, read, subscribe, unsubscribe, list_buses, trim_bus. */
import { z } from "zod";
import { busNameSchema, DEFAULT_BUS } from "../bus/bus-name.js";
import { busEventSchema, busInfoSchema, outAckSchema, seqSchema, subscribeArgsSchema } from "../bus/bus-schemas.js";
import { toBusEvent } from "../bus/bus-service.js";
import { PAGE_EVENTS } from "../bus/page.js";
import { assertWritableBus } from "../bus/reserved-buses.js";
import { defineOp } from "./registry.js";
import { defineStreamOp } from "./stream-op.js";

/** A bus event. */
export const eventSchema = busEventSchema;

export const outOp = defineOp({
  name: "out",
  group: "bus",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  scope: "bus",
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
  errors: ["payload_too_large", "bus_reserved"],
  handle: "bus.out",
  handler: (args, { services }) => {
    assertWritableBus(args.bus, "out");
    return services.bus.out(args.bus, args.payload);
  },
});

export const readOp = defineOp({
  name: "read",
  group: "bus",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "bus",
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
    const next = stored.length > 0 ? stored[stored.length - 1]!.seq : args.after;
    return {
      bus: args.bus,
      events: stored.map(toBusEvent),
      lastSeq: await services.bus.lastSeq(args.bus),
      next,
    };
  },
});

export const subscribeOp = defineStreamOp({
  name: "subscribe",
  group: "bus",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "bus",
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
  unsupported:
    "subscribe streams events and needs WebSocket or stdio; over HTTP use read with waitMs, or GET /bus/<name>/events (SSE)",
  handle: "bus.subscribe",
  open: (args, { services }) => {
    const source = services.bus.source(args.bus, args.after);
    const lastSeq = args.after === undefined ? source.ready : services.bus.lastSeq(args.bus);
    return { head: lastSeq.then((seq) => ({ bus: args.bus, lastSeq: seq })), source };
  },
});

export const unsubscribeOp = defineOp({
  name: "unsubscribe",
  group: "bus",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  scope: "any",
  summary: "Stop a subscription (any stream) of this connection.",
  input: z.object({ sub: z.string().describe("The id returned by subscribe") }).strict(),
  output: z.object({ ok: z.boolean().describe("False when no such subscription existed") }),
  example: { sub: "sub_1234abcd" },
  handle: null,
  handler: (args, { connection }) => ({ ok: connection?.detach(args.sub) ?? false }),
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
  handler: async (_args, { services }) => ({ buses: await services.bus.list() }),
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
  errors: ["bus_reserved"],
  handle: "bus.trim",
  handler: async (args, { services }) => {
    assertWritableBus(args.bus, "trim_bus");
    return { deleted: await services.bus.trim(args.bus, args) };
  },
});

/** Bus operations, in catalog order. */
export const busOps = [outOp, readOp, subscribeOp, unsubscribeOp, listBusesOp, trimBusOp] as const;
