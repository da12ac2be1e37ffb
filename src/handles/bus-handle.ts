/** The typed bus handle: out/read/list/trim through the dispatcher, subscribe as callback or async iterator. */
import { DEFAULT_BUS } from "../bus/bus-name.js";
import type { BusEvent, SubscribeArgs } from "../bus/bus-schemas.js";
import { type BusService, toBusEvent } from "../bus/bus-service.js";
import type { StoredEvent } from "../bus/event-store.js";
import { eventBytes, PAGE_BYTES } from "../bus/page.js";
import type { Caller, OpInput } from "./caller.js";

export type { SubscribeArgs } from "../bus/bus-schemas.js";

/** An async iterator over a bus's events; `close()` (or `break`) ends it. */
export interface BusEventStream extends AsyncIterableIterator<BusEvent> {
  close(): void;
}

const ITERATOR_BUFFER = 1000;

/** Builds `claw.bus`. */
export function createBusHandle(call: Caller, bus: () => BusService) {
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
  return {
    /** Publishes one event; resolves after commit. */
    out: (args: OpInput<"out">) => call("out", args),
    /** Reads events after a cursor; `waitMs` long-polls. */
    read: (args: OpInput<"read"> = {}) => call("read", args),
    /** Lists buses. */
    list: () => call("list_buses", {}),
    /** Trims a bus. */
    trim: (args: OpInput<"trim_bus">) => call("trim_bus", args),
    /** Subscribes: with a handler, returns its unsubscribe function; without, an async iterator. */
    subscribe,
  };
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
