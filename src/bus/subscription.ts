/**
 * One subscriber's cursor over a bus: the stream source of `subscribe`. It catches up from
 * storage in byte-bounded pages, then switches to live delivery in the same synchronous step as
 * its last storage read, so no commit can fall between the two: nothing is lost or repeated at
 * the seam. A consumer that reports backpressure is paused and later catches up from storage
 * again, so a slow reader never buffers in memory.
 */

import type { DeliverFn, StreamSource } from "../stream.js";
import type { BusService } from "./bus-service.js";
import type { StoredEvent } from "./event-store.js";
import { PAGE_EVENTS } from "./page.js";

export type { DeliverFn } from "../stream.js";

/** A subscription: its cursor is fixed when it is made, delivery begins with `start`. */
export class Subscription implements StreamSource<StoredEvent> {
  private mode: "catchup" | "live" | "paused" | "closed" = "catchup";
  private stopListening?: () => void;
  private pumpScheduled = false;
  private delivering = false;
  private resumeAsked = false;
  private deliver: DeliverFn = () => false;

  constructor(
    private readonly service: BusService,
    readonly bus: string,
    /** Seq of the last event delivered (or skipped as before the start). */
    public cursor: number,
  ) {}

  /** Starts delivery to `deliver` (once; a closed subscription stays closed). */
  start(deliver: DeliverFn): void {
    if (this.mode === "closed" || this.stopListening) return;
    this.deliver = deliver;
    this.stopListening = this.service.listen(this.bus, (events) => this.onLive(events));
    if (this.cursor >= this.service.lastSeq(this.bus)) this.mode = "live";
    else this.schedulePump();
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
    if (this.mode !== "live") return; // catch-up will read them from storage
    let fresh = events;
    if (events[0]!.seq <= this.cursor) fresh = events.filter((e) => e.seq > this.cursor);
    if (fresh.length === 0) return;
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

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.mode !== "catchup") return;
    let page: StoredEvent[];
    try {
      page = this.service.page(this.bus, this.cursor, PAGE_EVENTS);
    } catch {
      this.schedulePump(); // storage hiccup: try again on the next tick
      return;
    }
    // Same synchronous step as the read: nothing can commit in between, so the page either
    // reaches the bus's last seq (switch to live now) or more pages follow.
    const end = page.length > 0 ? page[page.length - 1]!.seq : this.cursor;
    if (end >= this.service.lastSeq(this.bus)) this.mode = "live";
    if (page.length > 0) this.hand(page, false);
  }
}
