/**
 * Page bounds shared by `read`, subscriptions and every streaming adapter: a page holds at most
 * {@link PAGE_EVENTS} events and at most {@link PAGE_BYTES} of framed event text (the first event
 * always, whatever its size: `fitBytes`, the rule every list page follows), so reading a bus of large events never builds a huge string and
 * never needs memory in proportion to the bus.
 */
import { PAGE_BYTES } from "../core/byte-page.js";
import type { StoredEvent } from "./event-store.js";

export { PAGE_BYTES };

/** Most events in one page. */
export const PAGE_EVENTS = 1000;

/**
 * Bytes counted per event on top of its payload for the frame around it (`{"event":"bus",
 * "sub":…,"bus":…,"seq":…,"ts":…,"payload":…}` or an SSE `id:`/`data:` block). Bus names
 * need no JSON escaping, so the name's length is its encoded length.
 */
export function frameOverhead(bus: string): number {
  return 128 + bus.length;
}

/** UTF-8 bytes of a JSON text, without encoding it when its length already decides. */
export function jsonBytes(json: string): number {
  return Buffer.byteLength(json, "utf8");
}

/** Bytes an event takes in a page. */
export function eventBytes(e: StoredEvent): number {
  return jsonBytes(e.payloadJson) + frameOverhead(e.bus);
}
