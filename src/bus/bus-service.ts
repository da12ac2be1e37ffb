/**
 * The event bus: group commit of concurrent `out` calls (one batch commits at a time, in call
 * order), in-order fan-out after commit (including other nodes' commits on a shared store),
 * long-poll reads, subscriptions with a seamless backlog→live hand-over, and retention. Every
 * storage call is asynchronous; "a read sees every `out` called before it" holds because reads
 * first wait for the commit of what is queued.
 */
import { DEFAULTS } from "../config/defaults.js";
import { type RetentionOptions, validateRetention } from "../config/retention.js";
import { ClawError } from "../core/errors.js";
import type { BusEvent, BusInfo, OutAck } from "./bus-schemas.js";
import { CommitQueue } from "./commit-queue.js";
import type { EventStore, PendingEvent, StoredEvent } from "./event-store.js";
import { FanOut, type Listener } from "./fan-out.js";
import { frameOverhead, PAGE_BYTES } from "./page.js";
import { type EncodedPayload, encodePayload, payloadSize, stringifyPayload } from "./payload-encoding.js";
import { type DeliverFn, Subscription } from "./subscription.js";

export type { RetentionOptions } from "../config/retention.js";
export type { BusEvent, OutAck } from "./bus-schemas.js";
export { type EncodedPayload, MAX_PAYLOAD_DEPTH } from "./payload-encoding.js";

/** Bus limits and retention. */
export interface BusOptions {
  /** Max size of one payload's JSON text, in bytes. Default: 1 MiB. */
  maxPayloadBytes?: number;
  retention?: RetentionOptions;
  /** Called after each group commit, before any ack; throwing fails the whole batch. Default: none */
  beforeAck?: () => void;
}

/** One `out` waiting for its commit: the event itself and how to answer it, in one object. */
interface Waiting extends PendingEvent {
  resolve: (ack: OutAck) => void;
  reject: (err: unknown) => void;
}

const noop = () => {};

/**
 * Most events and payload bytes in one group commit: more gains nothing (the commit's own
 * cost is long amortised) and a network store must not get one statement of gigabytes.
 */
const BATCH_LIMITS = { items: 10_000, bytes: 16 * 1024 * 1024 };

/** Parses a stored event's payload for a user. */
export function toBusEvent(e: StoredEvent): BusEvent {
  return { bus: e.bus, seq: e.seq, ts: e.ts, payload: JSON.parse(e.payloadJson) };
}

/** The bus service. One per claw. */
export class BusService {
  private readonly queue: CommitQueue<Waiting>;
  private readonly fanOut: FanOut;
  private readonly maxPayloadBytes: number;
  private readonly retention: RetentionOptions;
  private readonly beforeAck: () => void;
  private readonly sinceTrim = new Map<string, number>();
  private readonly retaining = new Set<Promise<void>>();
  private readonly stopFollowing: () => void;
  private ageTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly store: EventStore,
    options: BusOptions = {},
  ) {
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULTS.maxPayloadBytes;
    this.retention = validateRetention(options.retention ?? {});
    this.beforeAck = options.beforeAck ?? noop;
    this.queue = new CommitQueue((batch) => this.commit(batch), BATCH_LIMITS);
    this.fanOut = new FanOut(store, (message) => process.stderr.write(`${message}\n`));
    this.stopFollowing =
      store.follow?.(
        (bus, lastSeq) => this.fanOut.remote(bus, lastSeq),
        () => this.fanOut.watched(),
      ) ?? noop;
    const maxAge = this.retention.maxAgeMs;
    if (maxAge !== undefined && maxAge > 0) {
      this.ageTimer = setInterval(
        () => this.background(this.store.trimAllBefore(Date.now() - maxAge)),
        Math.min(60_000, Math.max(1000, maxAge / 10)),
      );
      this.ageTimer.unref();
    }
  }

  /** Encodes a payload once for `outEncoded`; throws `invalid_args` or `payload_too_large` (payload-encoding.ts). */
  encode(payload: unknown): EncodedPayload {
    return encodePayload(payload, this.maxPayloadBytes);
  }

  /** The payload limit in bytes of JSON text. */
  get payloadLimit(): number {
    return this.maxPayloadBytes;
  }

  /**
   * Publishes one event; resolves once it is committed. Calls in the same tick share a
   * transaction. A payload it refuses (too deep, too large, not JSON) rejects, never throws: a
   * caller that publishes from a callback and catches the promise (a task's change) would
   * otherwise have the error escape as an uncaught exception of its host.
   */
  out(bus: string, payload: unknown): Promise<OutAck> {
    // Two values, not an EncodedPayload: no object more per event on the bus's busiest path.
    let payloadJson: string;
    let size: number;
    try {
      payloadJson = stringifyPayload(payload);
      size = payloadSize(payloadJson, this.maxPayloadBytes);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.closed) return Promise.reject(new ClawError("shutting_down", "the bus is closed"));
    return new Promise<OutAck>((resolve, reject) => this.enqueue(bus, payloadJson, size, resolve, reject));
  }

  /** Publishes an already-serialised payload (sized here). */
  outJson(bus: string, payloadJson: string): Promise<OutAck> {
    if (this.closed) return Promise.reject(new ClawError("shutting_down", "the bus is closed"));
    let size: number;
    try {
      size = payloadSize(payloadJson, this.maxPayloadBytes);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.outEncoded(bus, { json: payloadJson, size });
  }

  /** Publishes a payload `encode` encoded: a caller that must know of a refusal at once encodes first. */
  outEncoded(bus: string, encoded: EncodedPayload): Promise<OutAck> {
    if (this.closed) return Promise.reject(new ClawError("shutting_down", "the bus is closed"));
    return new Promise<OutAck>((resolve, reject) => this.enqueue(bus, encoded.json, encoded.size, resolve, reject));
  }

  /**
   * Queues an already-serialised payload without a promise of its own, for hot paths that
   * publish many events and wait once (bash line events): a promise per event costs more than
   * its insert. `onError` is called if its batch fails; {@link committed} resolves once
   * everything queued so far is committed (or has failed). Order is the same as `outJson`'s.
   */
  enqueueJson(bus: string, payloadJson: string, onError: (err: unknown) => void): void {
    this.enqueueJsonMany(bus, [payloadJson], false, onError);
  }

  /**
   * {@link enqueueJson} for the events of one output chunk, in order, stamped with one time (they
   * arrived together). With `ascii` the caller vouches that every text is ASCII, so its UTF-8
   * size is its length and no text is encoded to count it (the limit is enforced all the same);
   * otherwise each is counted as in `enqueueJson`. An event over the limit fails alone.
   */
  enqueueJsonMany(bus: string, payloadJsons: readonly string[], ascii: boolean, onError: (err: unknown) => void): void {
    if (this.closed) {
      if (payloadJsons.length > 0) onError(new ClawError("shutting_down", "the bus is closed"));
      return;
    }
    const ts = Date.now();
    for (let i = 0; i < payloadJsons.length; i++) {
      const payloadJson = payloadJsons[i]!;
      let size: number;
      try {
        size =
          ascii && payloadJson.length <= this.maxPayloadBytes
            ? payloadJson.length
            : payloadSize(payloadJson, this.maxPayloadBytes);
      } catch (err) {
        onError(err);
        continue;
      }
      this.queue.add({ bus, ts, payloadJson, size, resolve: noop, reject: onError }, size);
    }
  }

  /** Adds an event to the next group commit. */
  private enqueue(
    bus: string,
    payloadJson: string,
    size: number,
    resolve: Waiting["resolve"],
    reject: Waiting["reject"],
  ): void {
    this.queue.add({ bus, ts: Date.now(), payloadJson, size, resolve, reject }, size);
  }

  /** Resolves once every event queued so far has been committed (or has failed). */
  committed(): Promise<void> {
    return this.queue.committed();
  }

  /**
   * Commits what is queued now instead of on the next turn; resolves once it is committed.
   * Reads and subscriptions wait for it, so they see every `out` called before them even while
   * it still waits for its group commit.
   */
  settle(): Promise<void> {
    return this.queue.idle ? Promise.resolve() : this.queue.settle();
  }

  private async commit(batch: Waiting[]): Promise<void> {
    let stored: StoredEvent[];
    try {
      stored = await this.store.append(batch);
      this.beforeAck(); // e.g. the database file was deleted: committed to a ghost, so not acknowledged
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const w = batch[i]!;
      if (w.resolve === noop) continue; // enqueued: nobody waits for this one's ack
      const s = stored[i]!;
      w.resolve({ bus: s.bus, seq: s.seq, ts: s.ts });
    }
    this.notify(stored);
  }

  private notify(stored: StoredEvent[]): void {
    // Nobody to tell and no retention to count for: the common case of a busy publisher.
    if (this.retention.maxEvents === undefined && this.fanOut.idle) return;
    const bus = stored[0]!.bus;
    let oneBus = true;
    for (let i = 1; i < stored.length && oneBus; i++) oneBus = stored[i]!.bus === bus;
    if (oneBus) {
      this.applyMaxEvents(bus, stored.length);
      this.fanOut.local(bus, stored);
      return;
    }
    // Group by bus, keeping seq order, then hand each bus's slice to its listeners.
    const byBus = new Map<string, StoredEvent[]>();
    for (const e of stored) {
      const list = byBus.get(e.bus) ?? [];
      byBus.set(e.bus, list);
      list.push(e);
    }
    for (const [bus, events] of byBus) {
      this.applyMaxEvents(bus, events.length);
      this.fanOut.local(bus, events);
    }
  }

  private applyMaxEvents(bus: string, added: number): void {
    const max = this.retention.maxEvents;
    if (max === undefined) return;
    const since = (this.sinceTrim.get(bus) ?? 0) + added;
    if (since < Math.max(100, Math.floor(max / 10))) {
      this.sinceTrim.set(bus, since);
      return;
    }
    this.sinceTrim.set(bus, 0);
    this.background(this.store.trim(bus, { keepLast: max }));
  }

  /**
   * Storage work no call waits for (retention): a failure is logged, and the next sweep
   * retries. `list` waits for it, so the counts it reports include the trims already due.
   */
  private background(work: Promise<unknown>): void {
    const settled = work.then(
      () => {},
      (err: Error) => {
        process.stderr.write(`tsclaw: bus retention failed: ${err.message}\n`);
      },
    );
    this.retaining.add(settled);
    void settled.finally(() => this.retaining.delete(settled));
  }

  /** Registers a listener for committed events of `bus` (this node's and others'); returns its removal. */
  listen(bus: string, listener: Listener): () => void {
    return this.fanOut.listen(bus, listener);
  }

  /** Number of listeners (subscriptions, waiting reads) on `bus`. */
  listenerCount(bus: string): number {
    return this.fanOut.count(bus);
  }

  /** Newest seq of `bus`, counting every `out` called so far. */
  async lastSeq(bus: string): Promise<number> {
    await this.settle();
    return this.store.lastSeq(bus);
  }

  /** Every bus with its first and last seq and count, counting every `out` called so far. */
  async list(): Promise<BusInfo[]> {
    await this.settle();
    await Promise.all(this.retaining);
    return this.store.list();
  }

  /** Deletes old events of `bus` (after committing what is queued); resolves with how many. */
  async trim(bus: string, options: { keepLast?: number; beforeTs?: number }): Promise<number> {
    await this.settle();
    return this.store.trim(bus, options);
  }

  /** One page of events after `after`: at most `limit` events and 4 MiB of framed text. */
  async page(bus: string, after: number, limit: number): Promise<StoredEvent[]> {
    await this.settle();
    return this.store.read(bus, after, limit, PAGE_BYTES, frameOverhead(bus));
  }

  /**
   * Reads a page after `after`; with `waitMs` > 0 and nothing to return yet, waits for the next
   * commit on the bus (or the end of the wait, or the signal).
   */
  async read(bus: string, after: number, limit: number, waitMs = 0, signal?: AbortSignal): Promise<StoredEvent[]> {
    if (waitMs <= 0 || signal?.aborted) return this.page(bus, after, limit);
    // Listening before the first read: a commit between that read and the wait still wakes it.
    let woken = false;
    let wake = noop;
    const stop = this.listen(bus, (committed) => {
      if (committed[committed.length - 1]!.seq > after) {
        woken = true;
        wake();
      }
    });
    try {
      const events = await this.page(bus, after, limit);
      if (events.length > 0 || signal?.aborted) return events;
      if (!woken) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            resolve();
          };
          const timer = setTimeout(done, waitMs);
          wake = done;
          signal?.addEventListener("abort", done, { once: true });
        });
      }
    } finally {
      stop();
    }
    return this.page(bus, after, limit);
  }

  /**
   * Subscribes to `bus`. With `after`, the backlog after that seq comes first, then live events,
   * with none lost or repeated at the seam; without it, only events committed from now on.
   */
  subscribe(bus: string, after: number | undefined, deliver: DeliverFn): Subscription {
    const sub = this.source(bus, after);
    sub.start(deliver);
    return sub;
  }

  /**
   * A subscription not started yet (the source `subscribe` opens): its cursor is fixed now
   * (`after`, or the bus's head counting every `out` called so far and none called later),
   * delivery begins with its `start`.
   */
  source(bus: string, after: number | undefined): Subscription {
    return new Subscription(this, bus, after ?? this.queue.fence(() => this.store.lastSeq(bus)));
  }

  /** Commits what is pending, stops timers and following other nodes. */
  async close(): Promise<void> {
    const flushed = this.settle();
    this.closed = true;
    if (this.ageTimer) clearInterval(this.ageTimer);
    this.stopFollowing();
    this.fanOut.clear();
    await flushed;
  }
}
