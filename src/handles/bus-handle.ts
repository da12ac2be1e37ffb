/**
 * The bus handle: `out`, `read`, `list`, `trim` and `subscribe` are all derived from the
 * registry. This file holds how a local claw consumes a stream operation in-process: it opens the
 * operation's source through the dispatcher and drains it into a callback or an async iterator,
 * pausing the source (which then re-reads from storage) while an iterator's reader lags.
 */
import { toBusEvent } from "../bus/bus-service.js";
import type { StoredEvent } from "../bus/event-store.js";
import { eventBytes, PAGE_BYTES } from "../bus/page.js";
import type { OpenedStream } from "../core/stream.js";
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
  const buffer: StoredEvent[] = [];
  let bufferedBytes = 0;
  let waiter: ((r: IteratorResult<ReturnType<typeof toBusEvent>>) => void) | undefined;
  let done = false;
  source.start((events) => {
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w({ value: toBusEvent(e), done: false });
        continue;
      }
      // Full (by count or by bytes): pause; the source re-reads the rest from storage later.
      if (buffer.length >= ITERATOR_BUFFER || bufferedBytes >= PAGE_BYTES) return i;
      buffer.push(e);
      bufferedBytes += eventBytes(e);
    }
    return true;
  });
  const close = () => {
    if (done) return;
    done = true;
    source.close();
    buffer.length = 0;
    bufferedBytes = 0;
    waiter?.({ value: undefined, done: true });
    waiter = undefined;
  };
  const stream: BusEventStream = {
    next() {
      if (buffer.length > 0) {
        const e = buffer.shift()!;
        bufferedBytes -= eventBytes(e);
        if (buffer.length === 0) source.resume();
        return Promise.resolve({ value: toBusEvent(e), done: false });
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      source.resume();
      return new Promise((resolve) => (waiter = resolve));
    },
    return() {
      close();
      return Promise.resolve({ value: undefined, done: true });
    },
    close,
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream;
}
