/**
 * The event bus: group commit of concurrent `out` calls, in-order fan-out after commit, long-poll
 * reads, subscriptions with a seamless backlog→live hand-over, and retention.
 */
import { DEFAULTS } from "../config/defaults.js";
import { ClawError } from "../errors.js";
import { KeyedListeners } from "../keyed-listeners.js";
import type { BusEvent, OutAck } from "./bus-schemas.js";
import type { EventStore, PendingEvent, StoredEvent } from "./event-store.js";
import { noteLargePayload } from "./large-garbage.js";
import { frameOverhead, jsonBytes, PAGE_BYTES } from "./page.js";
import { validateRetention } from "./retention.js";
import { type DeliverFn, Subscription } from "./subscription.js";

export type { BusEvent, OutAck } from "./bus-schemas.js";

/** Bus retention. Unset fields keep events forever. */
export interface RetentionOptions {
  /** Keep at most this many newest events per bus (a positive integer). */
  maxEvents?: number;
  /** Delete events older than this many milliseconds (at least 1000, at most 100 years). */
  maxAgeMs?: number;
}

/** Bus limits and retention. */
export interface BusOptions {
  /** Max size of one payload's JSON text, in bytes. Default: 1 MiB. */
  maxPayloadBytes?: number;
  retention?: RetentionOptions;
  /** Called after each group commit, before any ack; throwing fails the whole batch. Default: none */
  beforeAck?: () => void;
}

type Listener = (events: readonly StoredEvent[]) => void;

interface Waiting {
  event: PendingEvent;
  resolve: (ack: OutAck) => void;
  reject: (err: unknown) => void;
}

const noop = () => {};

/** Parses a stored event's payload for a user. */
export function toBusEvent(e: StoredEvent): BusEvent {
  return { bus: e.bus, seq: e.seq, ts: e.ts, payload: JSON.parse(e.payloadJson) };
}

/** The bus service. One per claw. */
export class BusService {
  private pending: Waiting[] = [];
  private afterFlush: (() => void)[] = [];
  private flushScheduled = false;
  private flushing = false;
  private readonly listeners = new KeyedListeners<Listener>();
  private readonly maxPayloadBytes: number;
  private readonly retention: RetentionOptions;
  private readonly beforeAck: () => void;
  private readonly sinceTrim = new Map<string, number>();
  private ageTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly store: EventStore,
    options: BusOptions = {},
  ) {
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULTS.maxPayloadBytes;
    this.retention = validateRetention(options.retention ?? {});
    this.beforeAck = options.beforeAck ?? noop;
    const maxAge = this.retention.maxAgeMs;
    if (maxAge !== undefined && maxAge > 0) {
      this.ageTimer = setInterval(
        () => this.store.trimAllBefore(Date.now() - maxAge),
        Math.min(60_000, Math.max(1000, maxAge / 10)),
      );
      this.ageTimer.unref();
    }
  }

  /** Serialises a payload, enforcing the size limit. */
  encode(payload: unknown): string {
    let json: string | undefined;
    try {
      json = JSON.stringify(payload);
    } catch (err) {
      throw new ClawError("invalid_args", `payload is not JSON-serialisable: ${(err as Error).message}`, {
        issues: [{ path: "payload", message: "not JSON-serialisable" }],
      });
    }
    if (json === undefined) {
      throw new ClawError("invalid_args", "payload is required (any JSON value)", {
        issues: [{ path: "payload", message: "required" }],
      });
    }
    this.sizeOf(json);
    return json;
  }

  /**
   * UTF-8 bytes of a payload's JSON text; throws `payload_too_large` past the limit. Every
   * publisher goes through here (out, bash line and exit events, session events), so no event
   * over the limit is ever stored.
   */
  sizeOf(payloadJson: string): number {
    // A UTF-16 unit is at most 3 UTF-8 bytes: short texts need no count against the limit.
    const bytes = payloadJson.length * 3 <= this.maxPayloadBytes ? -1 : jsonBytes(payloadJson);
    if (bytes > this.maxPayloadBytes) {
      throw new ClawError("payload_too_large", `payload is ${bytes} bytes; the limit is ${this.maxPayloadBytes}`, {
        limit: this.maxPayloadBytes,
      });
    }
    return bytes >= 0 ? bytes : jsonBytes(payloadJson);
  }

  /** The payload limit in bytes of JSON text. */
  get payloadLimit(): number {
    return this.maxPayloadBytes;
  }

  /** Publishes one event; resolves once it is committed. Calls in the same tick share a transaction. */
  out(bus: string, payload: unknown): Promise<OutAck> {
    const payloadJson = this.encode(payload);
    return this.outJson(bus, payloadJson);
  }

  /** Publishes an already-serialised payload. */
  outJson(bus: string, payloadJson: string): Promise<OutAck> {
    if (this.closed) return Promise.reject(new ClawError("shutting_down", "the bus is closed"));
    let size: number;
    try {
      size = this.sizeOf(payloadJson);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<OutAck>((resolve, reject) => this.enqueue(bus, payloadJson, size, resolve, reject));
  }

  /**
   * Queues an already-serialised payload without a promise of its own, for hot paths that
   * publish many events and wait once (bash line events): a promise per event costs more than
   * its insert. `onError` is called if its batch fails; {@link committed} resolves once
   * everything queued so far is committed (or has failed). Order is the same as `outJson`'s.
   */
  enqueueJson(bus: string, payloadJson: string, onError: (err: unknown) => void): void {
    if (this.closed) {
      onError(new ClawError("shutting_down", "the bus is closed"));
      return;
    }
    let size: number;
    try {
      size = this.sizeOf(payloadJson);
    } catch (err) {
      onError(err);
      return;
    }
    this.enqueue(bus, payloadJson, size, noop, onError);
  }

  /** Adds an event to the next group commit, scheduling it once per batch. */
  private enqueue(
    bus: string,
    payloadJson: string,
    size: number,
    resolve: Waiting["resolve"],
    reject: Waiting["reject"],
  ): void {
    this.pending.push({ event: { bus, ts: Date.now(), payloadJson, size }, resolve, reject });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Resolves once every event queued so far has been committed (or has failed). */
  committed(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.afterFlush.push(resolve));
  }

  /** Commits everything pending now. Called by the scheduler and at close. */
  flush(): void {
    if (this.flushing) return;
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.flushing = true;
    try {
      this.commit(batch);
    } finally {
      this.flushing = false;
    }
  }

  private commit(batch: Waiting[]): void {
    this.pending = [];
    const waiters = this.afterFlush;
    this.afterFlush = [];
    let stored: StoredEvent[];
    try {
      stored = this.store.append(batch.map((w) => w.event));
      this.beforeAck(); // e.g. the database file was deleted: committed to a ghost, so not acknowledged
    } catch (err) {
      for (const w of batch) w.reject(err);
      for (const w of waiters) w();
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const w = batch[i]!;
      if (w.resolve === noop) continue; // enqueued: nobody waits for this one's ack
      const s = stored[i]!;
      w.resolve({ bus: s.bus, seq: s.seq, ts: s.ts });
    }
    for (const w of waiters) w();
    this.notify(stored);
  }

  private notify(stored: StoredEvent[]): void {
    // Group by bus, keeping seq order, then hand each listener its bus's slice.
    const byBus = new Map<string, StoredEvent[]>();
    for (const e of stored) {
      const list = byBus.get(e.bus) ?? [];
      byBus.set(e.bus, list);
      list.push(e);
    }
    for (const [bus, events] of byBus) {
      this.applyMaxEvents(bus, events.length);
      for (const l of this.listeners.of(bus)) {
        try {
          l(events);
        } catch (err) {
          process.stderr.write(`tsclaw: bus listener failed: ${(err as Error).stack ?? err}\n`);
        }
      }
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
    this.store.trim(bus, { keepLast: max });
  }

  /** Registers a listener for committed events of `bus`; returns its removal. */
  listen(bus: string, listener: Listener): () => void {
    return this.listeners.listen(bus, listener);
  }

  /** Number of listeners (subscriptions, waiting reads) on `bus`. */
  listenerCount(bus: string): number {
    return this.listeners.count(bus);
  }

  /** Newest seq of `bus`, counting every `out` called so far (see {@link settle}). */
  lastSeq(bus: string): number {
    this.settle();
    return this.store.lastSeq(bus);
  }

  /**
   * Commits the pending group now, if there is one. Reads and subscriptions call it first, so
   * they see every `out` called before them even while it still waits for its group commit.
   */
  settle(): void {
    // Never from inside a flush (a listener asking): a nested commit would hand newer events
    // to some listeners before the older ones reach them.
    if (this.pending.length > 0 && !this.flushing) this.flush();
  }

  /** One page of events after `after`: at most `limit` events and 4 MiB of framed text. */
  page(bus: string, after: number, limit: number): StoredEvent[] {
    this.settle();
    const events = this.store.read(bus, after, limit, PAGE_BYTES, frameOverhead(bus));
    for (const e of events) noteLargePayload(e.payloadJson.length);
    return events;
  }

  /**
   * Reads a page after `after`; with `waitMs` > 0 and nothing to return yet, waits for the next
   * commit on the bus (or the end of the wait, or the signal).
   */
  async read(bus: string, after: number, limit: number, waitMs = 0, signal?: AbortSignal): Promise<StoredEvent[]> {
    const events = this.page(bus, after, limit);
    if (events.length > 0 || waitMs <= 0 || signal?.aborted) return events;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      const stop = this.listen(bus, (committed) => {
        if (committed[committed.length - 1]!.seq > after) done();
      });
      signal?.addEventListener("abort", done, { once: true });
    });
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
   * (`after`, or the bus's last seq counting every `out` called so far), delivery begins with
   * its `start`.
   */
  source(bus: string, after: number | undefined): Subscription {
    this.settle();
    return new Subscription(this, bus, after ?? this.lastSeq(bus));
  }

  /** Commits what is pending and stops timers. */
  close(): void {
    this.flush();
    this.closed = true;
    if (this.ageTimer) clearInterval(this.ageTimer);
    this.listeners.clear();
  }
}
