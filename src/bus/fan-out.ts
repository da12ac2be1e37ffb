/**
 * Hands committed events to a bus's listeners in seq order, with no gap and no duplicate, from
 * two sources: commits of this process (their events are in memory) and commits made by other
 * processes on a shared store (only their new head is known: the events are read from the
 * store). Per bus it remembers the last seq handed out; a commit that starts past it (another
 * node committed in between) first has the missing range read from the store, and everything
 * after waits behind that read, so listeners always see one contiguous sequence. With a single
 * writer (SQLite) commits are always contiguous and delivery stays synchronous.
 */
import { KeyedListeners } from "../core/keyed-listeners.js";
import type { EventStore, StoredEvent } from "./event-store.js";
import { frameOverhead, PAGE_BYTES, PAGE_EVENTS } from "./page.js";

/** Receives committed events of one bus, contiguous and in seq order. */
export type Listener = (events: readonly StoredEvent[]) => void;

interface Head {
  /** Seq of the last event handed to the listeners. */
  delivered: number;
  /** Newest seq known committed; past `delivered` while a read from the store catches up. */
  target: number;
  reading: boolean;
}

/** After a failed catch-up read, wait this long before trying again. */
const RETRY_MS = 200;

/** Listeners by bus, and the delivered head of every bus that has some. */
export class FanOut {
  private readonly listeners = new KeyedListeners<Listener>();
  private readonly heads = new Map<string, Head>();

  constructor(
    private readonly store: EventStore,
    private readonly log: (message: string) => void,
  ) {}

  /** Registers a listener for committed events of `bus`; returns its removal. */
  listen(bus: string, listener: Listener): () => void {
    const off = this.listeners.listen(bus, listener);
    return () => {
      off();
      if (!this.listeners.has(bus)) this.heads.delete(bus);
    };
  }

  /** True when no bus has a listener. */
  get idle(): boolean {
    return !this.listeners.any();
  }

  /** Number of listeners on `bus`. */
  count(bus: string): number {
    return this.listeners.count(bus);
  }

  /** Buses with listeners (the ones a shared store must tell about other processes' commits). */
  watched(): Iterable<string> {
    return this.listeners.keys();
  }

  /** Events of `bus` this process just committed, contiguous and in seq order. */
  local(bus: string, events: readonly StoredEvent[]): void {
    if (!this.listeners.has(bus)) return;
    const last = events[events.length - 1]!.seq;
    const head = this.heads.get(bus);
    if (!head) {
      this.heads.set(bus, { delivered: last, target: last, reading: false });
      this.emit(bus, events);
      return;
    }
    if (head.reading || events[0]!.seq > head.delivered + 1) {
      this.advance(bus, head, last); // someone else committed in between: read from the store
      return;
    }
    const fresh = events[0]!.seq <= head.delivered ? events.filter((e) => e.seq > head.delivered) : events;
    if (fresh.length === 0) return;
    head.delivered = last;
    if (head.target < last) head.target = last;
    this.emit(bus, fresh);
  }

  /** Another process committed on `bus`, which now ends at `lastSeq`. */
  remote(bus: string, lastSeq: number): void {
    if (!this.listeners.has(bus)) return;
    let head = this.heads.get(bus);
    if (!head) {
      // Nothing handed out yet: start with the newest event; a subscriber whose cursor is older
      // sees the gap and catches up from the store itself.
      head = { delivered: lastSeq - 1, target: lastSeq - 1, reading: false };
      this.heads.set(bus, head);
    }
    this.advance(bus, head, lastSeq);
  }

  /** Forgets every listener. */
  clear(): void {
    this.listeners.clear();
    this.heads.clear();
  }

  private advance(bus: string, head: Head, lastSeq: number): void {
    if (lastSeq <= head.target) return;
    head.target = lastSeq;
    void this.catchUp(bus, head);
  }

  /** Reads (delivered, target] from the store, page by page, and hands it out. */
  private async catchUp(bus: string, head: Head): Promise<void> {
    if (head.reading) return;
    head.reading = true;
    try {
      while (head.delivered < head.target && this.heads.get(bus) === head) {
        const page = await this.store.read(bus, head.delivered, PAGE_EVENTS, PAGE_BYTES, frameOverhead(bus));
        if (this.heads.get(bus) !== head) return; // its last listener left meanwhile
        if (page.length === 0) {
          head.delivered = head.target; // trimmed meanwhile: nothing left to hand out
          break;
        }
        head.delivered = page[page.length - 1]!.seq;
        this.emit(bus, page);
      }
    } catch (err) {
      this.log(`tsclaw: bus ${bus}: reading committed events failed, retrying: ${(err as Error).message}`);
      setTimeout(() => void this.catchUp(bus, head), RETRY_MS).unref();
    } finally {
      head.reading = false;
    }
  }

  private emit(bus: string, events: readonly StoredEvent[]): void {
    for (const l of this.listeners.of(bus)) {
      try {
        l(events);
      } catch (err) {
        this.log(`tsclaw: bus listener failed: ${(err as Error).stack ?? err}`);
      }
    }
  }
}
