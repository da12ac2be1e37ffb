/** The bus's public shapes, each defined once as a zod schema; the TypeScript types are inferred. */
import { z } from "zod";
import { busNameSchema } from "./bus-name.js";

/** A bus event as users see it. */
export const busEventSchema = z.object({
  bus: z.string(),
  seq: z.number().int().describe("Per-bus sequence number: starts at 1, contiguous unless trimmed"),
  ts: z.number().describe("Commit time, epoch milliseconds"),
  payload: z.unknown().describe("The published JSON value"),
});
/** A bus event as users see it. */
export type BusEvent = z.infer<typeof busEventSchema>;

/** What `out` acknowledges. */
export const outAckSchema = z.object({ bus: z.string(), seq: z.number().int(), ts: z.number() });
/** What `out` acknowledges. */
export type OutAck = z.infer<typeof outAckSchema>;

/** Summary of one bus, as `list_buses` returns it. */
export const busInfoSchema = z.object({
  bus: z.string(),
  firstSeq: z.number().int().describe("Oldest seq still stored (lastSeq + 1 when none is)"),
  lastSeq: z.number().int().describe("Newest seq ever assigned"),
  count: z.number().int().describe("Events stored"),
});
/** Summary of one bus. */
export type BusInfo = z.infer<typeof busInfoSchema>;

/** A seq cursor. */
export const seqSchema = z.number().int().min(0);

/** Arguments of `subscribe` (and of the typed `claw.bus.subscribe`). */
export const subscribeArgsSchema = z
  .object({
    bus: busNameSchema.default("thebus").describe('Bus name. Default: "thebus"'),
    after: seqSchema.optional().describe("Deliver the backlog after this seq first. Default: only new events"),
  })
  .strict();
/** Arguments of a typed subscription. */
export type SubscribeArgs = z.input<typeof subscribeArgsSchema>;
