/**
 * One subscriber's cursor over a bus: the stream source of `subscribe`. It catches up from
 * storage in byte-bounded pages, then switches to live delivery. Storage reads are
 * asynchronous, so the seam is made safe by order instead of by a single synchronous step: the
 * live listener is registered before the first read, the bus's head is read before each page,
 * and a page that reaches both that head and the newest live event seen meanwhile switches to
 * live; a live batch that does not follow the cursor (a gap) sends the subscription back to
 * storage. Nothing is lost or repeated at the seam. A consumer that reports backpressure is
 * paused and later catches up from storage again, so a slow reader never buffers in memory.
 */

import type { DeliverFn, StreamSource } from "../core/stream.js";
import type { EventStore, StoredEvent } from "./event-store.js";
import type { Listener } from "./fan-out.js";
import { PAGE_EVENTS } from "./page.js";

export type { DeliverFn } from "../core/stream.js";

/** What a subscription reads of its bus (the bus service passes itself). */
export interface SubscriptionBus {
  readonly store: Pick<EventStore, "lastSeq">;
  /** One page of events after `after`. */
  page(bus: string, after: number, limit: number): Promise<StoredEvent[]>;
  /** Calls `listener` with each live batch on `bus`; returns the stop function. */
  listen(bus: string, listener: Listener): () => void;
}

/** After a failed storage read, try again this much later. */
const RETRY_MS = 100;

/** A subscription: its cursor is fixed when it is made, delivery begins with `start`. */
export class Subscription implements StreamSource<StoredEvent> {
  private mode: "catchup" | "live" | "paused" | "closed" = "catchup";
  private stopListening?: () => void;
  private pumpScheduled = false;
  private pumping = false;
  private delivering = false;
  private resumeAsked = false;
  /** Newest seq a live batch brought while catching up (those events are read from storage). */
  private seen = 0;
  private deliver: DeliverFn = () => false;
  /** Seq of the last event delivered (or skipped as before the start); -1 until known. */
  public cursor = -1;
  /** Resolves with the starting cursor. */
  readonly ready: Promise<number>;

  constructor(
    private readonly service: SubscriptionBus,
    readonly bus: string,
    /** The starting cursor, or its promise (the bus's head as of the call that made this). */
    start: number | Promise<number>,
  ) {
    this.ready = Promise.resolve(start).then((c) => {
      if (this.cursor < 0) this.cursor = c;
      return c;
    });
    this.ready.catch(() => {}); // reported through delivery's retries, not as an unhandled rejection
  }

  /** Starts delivery to `deliver` (once; a closed subscription stays closed). */
  start(deliver: DeliverFn): void {
    if (this.mode === "closed" || this.stopListening) return;
    this.deliver = deliver;
    this.stopListening = this.service.listen(this.bus, (events) => this.onLive(events));
    void this.probe();
  }

  /** Resumes a paused subscription; it catches up from storage. Safe to call at any time. */
  resume(): void {
    if (this.delivering) {
      this.resumeAsked = true; // the consumer drained while still inside its delivery
      return;
    }
    if (this.mode !== "paused") return;
    this.mode = "catchup";
    this.schedulePump();
  }

  /** Stops delivery for good. */
  close(): void {
    this.mode = "closed";
    this.stopListening?.();
  }

  /** True once closed. */
  get closed(): boolean {
    return this.mode === "closed";
  }

  private onLive(events: readonly StoredEvent[]): void {
    const last = events[events.length - 1]!.seq;
    if (this.mode !== "live") {
      if (last > this.seen) this.seen = last; // catch-up reads them from storage
      return;
    }
    let fresh = events;
    if (events[0]!.seq <= this.cursor) fresh = events.filter((e) => e.seq > this.cursor);
    if (fresh.length === 0) return;
    if (fresh[0]!.seq > this.cursor + 1) {
      // Not contiguous with what we delivered (another node's commit we have not seen yet):
      // storage has everything in between.
      this.seen = last;
      this.mode = "catchup";
      this.schedulePump();
      return;
    }
    this.hand(fresh, true);
  }

  /** Delivers `events`, moves the cursor past what was taken, and applies the consumer's answer. */
  private hand(events: readonly StoredEvent[], live: boolean): void {
    this.delivering = true;
    this.resumeAsked = false;
    let answer: ReturnType<DeliverFn>;
    try {
      answer = this.deliver(events, live);
    } finally {
      this.delivering = false;
    }
    if (this.closed) return; // the consumer closed us during delivery
    const taken = typeof answer === "number" ? Math.max(0, Math.min(events.length, answer)) : events.length;
    if (taken > 0) this.cursor = events[taken - 1]!.seq;
    if (answer === false || typeof answer === "number") {
      if (this.resumeAsked) {
        this.mode = "catchup";
        this.schedulePump();
      } else this.mode = "paused";
    } else if (taken < events.length || this.mode === "catchup") this.schedulePump();
  }

  private schedulePump(delayMs = 0): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    const run = () => {
      this.pumpScheduled = false;
      void this.pump();
    };
    if (delayMs > 0) setTimeout(run, delayMs).unref();
    else setImmediate(run);
  }

  /**
   * The first step: when nothing committed lies past the cursor, go live at once (what commits
   * from now on is live, as a consumer expects), else catch up from storage. The committed head
   * is enough (no need to hurry queued outs): whatever commits later reaches the listener.
   */
  private async probe(): Promise<void> {
    try {
      await this.ready;
      const head = await this.service.store.lastSeq(this.bus);
      if (this.mode !== "catchup") return;
      if (this.cursor >= head && this.cursor >= this.seen) {
        this.mode = "live";
        return;
      }
    } catch {
      // storage hiccup: the pump retries
    }
    this.schedulePump();
  }

  private async pump(): Promise<void> {
    if (this.mode !== "catchup" || this.pumping) return;
    this.pumping = true;
    let page: StoredEvent[];
    let head: number;
    try {
      await this.ready;
      head = await this.service.store.lastSeq(this.bus);
      page = head > this.cursor ? await this.service.page(this.bus, this.cursor, PAGE_EVENTS) : [];
    } catch {
      this.pumping = false;
      if (this.mode === "catchup") this.schedulePump(RETRY_MS); // storage hiccup: try again shortly
      return;
    }
    this.pumping = false;
    if (this.mode !== "catchup") return; // closed or paused meanwhile
    // The listener was registered before the head was read: every commit after that read came
    // to onLive (and raised `seen`), so reaching both means live delivery continues the page.
    if (page.length === 0) {
      // Nothing after the cursor up to the head (trimmed, or nothing new): move to the head.
      if (head > this.cursor) this.cursor = head;
      if (this.cursor >= this.seen) this.mode = "live";
      else this.schedulePump();
      return;
    }
    const end = page[page.length - 1]!.seq;
    if (end >= head && end >= this.seen) this.mode = "live";
    this.hand(page, false);
  }
}
