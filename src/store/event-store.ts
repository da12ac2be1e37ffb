/**
 * The storage interface under the bus, asynchronous so that SQLite (one local file) and
 * PostgreSQL (several nodes on one database) implement the same one. Operations and adapters
 * never see which one runs.
 */
import type { StoredEvent } from "../core/stored-event.js";

export type { StoredEvent } from "../core/stored-event.js";

/** Summary of one bus as the store keeps it (the bus's `busInfoSchema` is its public shape). */
export interface BusInfo {
  bus: string;
  /** Oldest seq still stored (lastSeq + 1 when none is). */
  firstSeq: number;
  /** Newest seq ever assigned. */
  lastSeq: number;
  /** Events stored. */
  count: number;
}

/** Most buses a store keeps in memory; others are looked up again when used. */
export const BUS_CACHE_LIMIT = 10_000;

/** An event waiting for its seq. */
export interface PendingEvent {
  bus: string;
  ts: number;
  payloadJson: string;
  /** UTF-8 bytes of `payloadJson`. */
  size: number;
}

/** Told when events were committed by another process on the same database: bus and its new last seq. */
export type RemoteCommit = (bus: string, lastSeq: number) => void;

/** Durable, ordered, per-bus event storage. */
export interface EventStore {
  /** The newest seq ever assigned on `bus` (0 when none), trimming notwithstanding. */
  lastSeq(bus: string): Promise<number>;
  /**
   * Appends all events in one transaction and resolves with them and their seqs, in input order.
   * Either every event is durable or none is (and the promise rejects).
   */
  append(batch: readonly PendingEvent[]): Promise<StoredEvent[]>;
  /**
   * Events with seq > after, oldest first: at most `limit`, and no more than `maxBytes` of
   * payload text, counting `overheadBytes` per event for its framing (the first event always,
   * whatever its size). Payloads past the budget are never read.
   */
  read(bus: string, after: number, limit: number, maxBytes: number, overheadBytes: number): Promise<StoredEvent[]>;
  /** Every bus that has ever had an event. */
  list(): Promise<BusInfo[]>;
  /** Deletes events; resolves with how many. */
  trim(bus: string, options: { keepLast?: number; beforeTs?: number }): Promise<number>;
  /** Deletes events older than `ts` on every bus; resolves with how many. */
  trimAllBefore(ts: number): Promise<number>;
  /**
   * Only on stores shared by several processes: calls `onCommit` for commits made by the
   * others, for the buses `watched()` names (at least; it may name others). A lost
   * notification must cost latency, never an event: the store also polls the heads of the
   * watched buses. Returns the stop function.
   */
  follow?(onCommit: RemoteCommit, watched: () => Iterable<string>): () => void;
  /**
   * How many buses the store keeps state of in memory (SQLite: ids and last seqs, at most
   * {@link BUS_CACHE_LIMIT}; names that were never written are not kept). Absent on stores that
   * keep none.
   */
  cachedBuses?(): number;
  /** Releases what the store holds (connections, timers). */
  close?(): Promise<void>;
}
