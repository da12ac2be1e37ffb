/**
 * One subscriber's cursor over a bus. It catches up from storage in pages, then switches to live
 * delivery in the same synchronous step as its last storage read, so no commit can fall between
 * the two: nothing is lost or repeated at the seam. A consumer that reports backpressure is
 * paused and later catches up from storage again, so a slow reader never buffers in memory.
 */

import type { BusService } from "./bus-service.js";
import type { StoredEvent } from "./event-store.js";

/** Receives events in seq order. Returning `false` pauses delivery until `resume()`. */
export type DeliverFn = (events: readonly StoredEvent[]) => boolean | void;

const PAGE = 1000;

/** A live subscription. */
export class Subscription {
  private mode: "catchup" | "live" | "paused" | "closed" = "catchup";
  private stopListening?: () => void;
  private pumpScheduled = false;

  constructor(
    private readonly service: BusService,
    readonly bus: string,
    /** Seq of the last event delivered (or skipped as before the start). */
    public cursor: number,
    private readonly deliver: DeliverFn,
  ) {}

  /** Starts delivery. */
  start(): void {
    this.stopListening = this.service.listen(this.bus, (events) => this.onLive(events));
    if (this.cursor >= this.service.lastSeq(this.bus)) this.mode = "live";
    else this.schedulePump();
  }

  /** Resumes a paused subscription; it catches up from storage. */
  resume(): void {
    if (this.mode !== "paused") return;
    this.mode = "catchup";
    this.schedulePump();
  }

  /** Stops delivery for good. */
  close(): void {
    this.mode = "closed";
    this.stopListening?.();
  }

  get closed(): boolean {
    return this.mode === "closed";
  }

  private onLive(events: readonly StoredEvent[]): void {
    if (this.mode !== "live") return; // catch-up will read them from storage
    let fresh = events;
    if (events[0]!.seq <= this.cursor) fresh = events.filter((e) => e.seq > this.cursor);
    if (fresh.length === 0) return;
    this.cursor = fresh[fresh.length - 1]!.seq;
    if (this.deliver(fresh) === false && this.mode === "live") this.mode = "paused";
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
      page = this.service.store.read(this.bus, this.cursor, PAGE);
    } catch {
      this.schedulePump(); // storage hiccup: try again on the next tick
      return;
    }
    if (page.length > 0) this.cursor = page[page.length - 1]!.seq;
    // Same synchronous step as the read: nothing can commit in between.
    const caughtUp = page.length < PAGE;
    if (caughtUp) this.mode = "live";
    const more = page.length > 0 ? this.deliver(page) : true;
    if (this.closed) return; // the consumer closed us during delivery
    if (more === false) this.mode = "paused";
    else if (!caughtUp) this.schedulePump();
  }
}
