/**
 * Streams: what a stream operation opens, and the one way every consumer drains one. A source
 * hands out its backlog from storage, then live items, in order, with nothing lost or repeated at
 * the seam; it can be paused and then re-reads from storage, so a slow consumer costs no memory.
 *
 * The backpressure contract, the same for every transport: a backlog page stops at the first
 * sign of congestion and the source pauses until the consumer drains. Live items pause too where
 * the stream is the consumer's own (SSE, the in-process iterator); a connection that carries many
 * streams and its responses in one ordered channel (WebSocket, stdio) keeps pushing live items
 * and is cut at its high-water mark instead, telling the consumer the seq to resume after.
 */
import type { StoredEvent } from "./stored-event.js";

/**
 * Receives items in order, `live` false for pages read from storage. Returning `true` or nothing
 * takes them all; `false` takes them all and pauses delivery until `resume()`; a number `n`
 * takes only the first `n` and pauses (the rest is read from storage after `resume()`).
 */
// biome-ignore lint/suspicious/noConfusingVoidType: listeners written as `=> void` must stay assignable
export type DeliverFn<T = StoredEvent> = (items: readonly T[], live: boolean) => boolean | number | undefined | void;

/** A typed source of ordered items: backlog, then live, resumable, closable. */
export interface StreamSource<T = StoredEvent> {
  /** Starts delivery to `deliver`. Called once. */
  start(deliver: DeliverFn<T>): void;
  /** Continues a paused delivery (from storage). Safe to call at any time. */
  resume(): void;
  /** Stops delivery for good. */
  close(): void;
  /** True once closed. */
  readonly closed: boolean;
}

/**
 * What a stream operation's `open` returns: the source of its items, made (its position fixed)
 * synchronously, and the head (its answer), which may need storage and so comes as a promise.
 */
export interface OpenedStream<H, T = StoredEvent> {
  head: Promise<H>;
  source: StreamSource<T>;
}

/** Where a consumer writes a stream's items, one at a time. */
export interface StreamSink<T = StoredEvent> {
  /** Writes one item; false when the consumer was cut or has gone (delivery stops). */
  write(item: T): boolean;
  /** True while items are written faster than the consumer reads them. */
  congested(): boolean;
  /** Calls `fn` once, after what was written has drained (never synchronously). */
  onDrain(fn: () => void): void;
  /** Pause live items on congestion too, instead of leaving a slow consumer to `write`. Default: false */
  pauseLive?: boolean;
}

/** A DeliverFn applying the backpressure contract for `sink`; `resume` continues the source. */
export function deliverToSink<T>(sink: StreamSink<T>, resume: () => void): DeliverFn<T> {
  return (items, live) => {
    const pauseOnCongestion = !live || sink.pauseLive === true;
    for (let i = 0; i < items.length; i++) {
      if (pauseOnCongestion && sink.congested()) {
        sink.onDrain(resume);
        return i;
      }
      if (!sink.write(items[i]!)) return false;
    }
    if (pauseOnCongestion && sink.congested()) {
      sink.onDrain(resume);
      return false;
    }
    return true;
  };
}

/** Drains `source` into `sink` under the backpressure contract. */
export function pipeStream<T>(source: StreamSource<T>, sink: StreamSink<T>): void {
  source.start(deliverToSink(sink, () => source.resume()));
}
