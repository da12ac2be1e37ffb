/**
 * The storage interface under the bus. SQLite implements it today; another engine (PostgreSQL)
 * can replace it without touching operations or adapters.
 */
import type { BusInfo } from "./bus-schemas.js";

export type { BusInfo } from "./bus-schemas.js";

/** An event as stored: the payload kept as its JSON text, so fan-out never re-serialises it. */
export interface StoredEvent {
  bus: string;
  seq: number;
  ts: number;
  /** The payload's JSON text. */
  payloadJson: string;
}

/** An event waiting for its seq. */
export interface PendingEvent {
  bus: string;
  ts: number;
  payloadJson: string;
  /** UTF-8 bytes of `payloadJson`. */
  size: number;
}

/** Durable, ordered, per-bus event storage. */
export interface EventStore {
  /** The newest seq ever assigned on `bus` (0 when none), trimming notwithstanding. */
  lastSeq(bus: string): number;
  /**
   * Appends all events in one transaction and returns them with their seqs, in input order.
   * Either every event is durable or none is (and the call throws).
   */
  append(batch: readonly PendingEvent[]): StoredEvent[];
  /**
   * Events with seq > after, oldest first: at most `limit`, and no more than `maxBytes` of
   * payload text, counting `overheadBytes` per event for its framing (the first event always,
   * whatever its size). Payloads past the budget are never read.
   */
  read(bus: string, after: number, limit: number, maxBytes: number, overheadBytes: number): StoredEvent[];
  /** Every bus that has ever had an event. */
  list(): BusInfo[];
  /** Deletes events; returns how many. */
  trim(bus: string, options: { keepLast?: number; beforeTs?: number }): number;
  /** Deletes events older than `ts` on every bus; returns how many. */
  trimAllBefore(ts: number): number;
}
