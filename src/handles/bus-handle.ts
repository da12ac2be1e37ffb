/**
 * The bus handle: `out`, `read`, `list`, `trim` are derived from the registry; `subscribe` (a
 * callback or an async iterator) is built here for the local claw, over the bus service.
 */
import { DEFAULT_BUS } from "../bus/bus-name.js";
import type { BusEvent, SubscribeArgs } from "../bus/bus-schemas.js";
import { type BusService, toBusEvent } from "../bus/bus-service.js";
import type { StoredEvent } from "../bus/event-store.js";
import { eventBytes, PAGE_BYTES } from "../bus/page.js";
import type { GroupMethods } from "./handle-types.js";

export type { SubscribeArgs } from "../bus/bus-schemas.js";

/** An async iterator over a bus's events; `close()` (or `break`) ends it. */
export interface BusEventStream extends AsyncIterableIterator<BusEvent> {
  close(): void;
}

/**
 * `claw.bus`. `Unsubscribe` is what a callback subscription returns: `() => void` locally,
 * `() => Promise<void>` remotely (it resolves once the server stopped the subscription).
 */
export interface BusHandle<Unsubscribe = () => void> extends GroupMethods<"bus"> {
  /** Calls `handler` for each event, in seq order: the backlog after `after`, then live ones. */
  subscribe(args: SubscribeArgs, handler: (event: BusEvent) => void): Unsubscribe;
  /** The same events as an async iterator. */
  subscribe(args?: SubscribeArgs): BusEventStream;
}

const ITERATOR_BUFFER = 1000;

/** The local `subscribe`, over the bus service. */
export function localSubscribe(bus: () => BusService): BusHandle["subscribe"] {
  function subscribe(args: SubscribeArgs, handler: (event: BusEvent) => void): () => void;
  function subscribe(args?: SubscribeArgs): BusEventStream;
  function subscribe(args: SubscribeArgs = {}, handler?: (event: BusEvent) => void): (() => void) | BusEventStream {
    if (handler) {
      const sub = bus().subscribe(args.bus ?? DEFAULT_BUS, args.after, (events) => {
        for (const e of events) handler(toBusEvent(e));
      });
      return () => sub.close();
    }
    return iterate(bus(), args);
  }
  return subscribe;
}

function iterate(service: BusService, args: SubscribeArgs): BusEventStream {
  const buffer: StoredEvent[] = [];
  let bufferedBytes = 0;
  let waiter: ((r: IteratorResult<BusEvent>) => void) | undefined;
  let done = false;
  const sub = service.subscribe(args.bus ?? DEFAULT_BUS, args.after, (events) => {
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w({ value: toBusEvent(e), done: false });
        continue;
      }
      // Full (by count or by bytes): pause; the subscription re-reads the rest from storage later.
      if (buffer.length >= ITERATOR_BUFFER || bufferedBytes >= PAGE_BYTES) return i;
      buffer.push(e);
      bufferedBytes += eventBytes(e);
    }
    return true;
  });
  const close = () => {
    if (done) return;
    done = true;
    sub.close();
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
        if (buffer.length === 0) sub.resume();
        return Promise.resolve({ value: toBusEvent(e), done: false });
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      sub.resume();
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
