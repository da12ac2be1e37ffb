/**
 * The bus handle: `out`, `read`, `list`, `trim` and `subscribe` are all derived from the
 * registry. This file holds how a local claw consumes a stream operation in-process: it opens the
 * operation's source through the dispatcher and drains it into a callback or an async iterator,
 * pausing the source (which then re-reads from storage) while an iterator's reader lags.
 */
import { type BusEvent, toBusEvent } from "../bus/bus-service.js";
import type { StoredEvent } from "../bus/event-store.js";
import { eventBytes, PAGE_BYTES } from "../bus/page.js";
import type { OpenedStream } from "../core/stream.js";
import { EventIterator } from "./event-iterator.js";
import type { BusEventStream, GroupMethods, StreamMethod, StreamMethods } from "./handle-types.js";

export type { SubscribeArgs } from "../bus/bus-schemas.js";
export type { BusEventStream } from "./handle-types.js";

/**
 * `claw.bus`. `Unsubscribe` is what a callback subscription returns: `() => void` locally,
 * `() => Promise<void>` remotely (it resolves once the server stopped the subscription).
 */
export type BusHandle<Unsubscribe = () => void> = GroupMethods<"bus"> & StreamMethods<"bus", Unsubscribe>;

/** Opens a stream operation in-process by name (the dispatcher's `openStream`). */
export type OpenStream = (name: string, args: object) => OpenedStream<unknown>;

const ITERATOR_BUFFER = 1000;

/** The local method of stream operation `name`: a callback subscription or an async iterator. */
export function localStream(open: OpenStream, name: string): StreamMethod<object, () => void> {
  function method(args: object, handler: (event: ReturnType<typeof toBusEvent>) => void): () => void;
  function method(args?: object): BusEventStream;
  function method(args: object = {}, handler?: (event: ReturnType<typeof toBusEvent>) => void) {
    const { source } = open(name, args);
    if (!handler) return iterate(source);
    source.start((events) => {
      for (const e of events) handler(toBusEvent(e));
    });
    return () => source.close();
  }
  return method;
}

function iterate(source: OpenedStream<unknown>["source"]): BusEventStream {
  const it = new EventIterator<StoredEvent, BusEvent>(source, toBusEvent, {
    maxItems: ITERATOR_BUFFER,
    maxBytes: PAGE_BYTES,
    sizeOf: eventBytes,
  });
  source.start((events) => {
    for (let i = 0; i < events.length; i++) {
      // Full (by count or by bytes): pause; the source re-reads the rest from storage later.
      if (!it.push(events[i]!)) return i + 1;
    }
    return true;
  });
  return it.stream;
}
