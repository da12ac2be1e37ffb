/**
 * Remote streams (callback and async iterator) of any stream operation, over the client's socket
 * channel. Each keeps the seq of the last event it delivered: after any reconnect it opens the
 * stream again with `after` = that seq and drops what it already has, so the caller sees every
 * event once, in order. An iterator whose reader falls behind pauses (the server closes the
 * stream) and later re-reads from storage: the same contract as in-process.
 */
import type { BusEvent } from "../bus/bus-service.js";
import type { ClawError } from "../core/errors.js";
import type { SubscribeArgs } from "../handles/bus-handle.js";
import { EventIterator } from "../handles/event-iterator.js";
import type { BusEventStream, StreamMethod } from "../handles/handle-types.js";
import type { ChannelMember, EventFrame, SocketChannel } from "./socket-channel.js";

/** Where a subscription's events go. */
interface Sink {
  events(event: BusEvent): void;
  fail(err: ClawError): void;
  done(): void;
}

const DEFAULT_BUS = "thebus";

/** One subscription's cursor and its server-side counterpart on the current connection. */
class RemoteSubscription implements ChannelMember {
  /** Seq of the last delivered event; undefined until the first subscribe says where "now" is. */
  cursor: number | undefined;
  private serverSub?: string;
  private paused = false;
  closed = false;
  /** Settles when the first subscribe request has (or the connection failed): later calls wait for it. */
  readonly started: Promise<void>;
  private markStarted!: () => void;

  constructor(
    private readonly channel: SocketChannel,
    /** The stream operation (e.g. "subscribe"). */
    private readonly op: string,
    private readonly bus: string,
    after: number | undefined,
    private readonly sink: Sink,
  ) {
    this.cursor = after;
    this.started = new Promise((resolve) => (this.markStarted = resolve));
  }

  attach(): void {
    if (this.closed || this.paused || this.serverSub) return;
    const generation = this.channel.generation;
    const args = this.cursor === undefined ? { bus: this.bus } : { bus: this.bus, after: this.cursor };
    const onResult = (result: unknown) => {
      const r = result as { sub: string; lastSeq: number };
      if (generation !== this.channel.generation) return; // that connection is gone
      if (this.closed || this.paused || this.serverSub) {
        void this.channel.unbind(r.sub);
        return;
      }
      this.cursor ??= r.lastSeq;
      this.serverSub = r.sub;
      this.channel.confirmed();
      this.channel.bind(r.sub, this);
    };
    this.channel.request(this.op, args, onResult).then(
      () => this.markStarted(),
      (err: ClawError) => {
        this.markStarted();
        if (err.code === "connection_failed" || this.closed) return; // the reconnect attaches again
        if (err.retryable) {
          setTimeout(() => this.attach(), 1000);
          return;
        }
        this.close();
        this.sink.fail(err);
      },
    );
  }

  detach(): void {
    this.serverSub = undefined;
    this.markStarted();
  }

  receive(frame: EventFrame): void {
    if (this.closed || this.paused) return;
    if (this.cursor !== undefined && frame.seq <= this.cursor) return; // delivered before a reconnect
    this.cursor = frame.seq;
    this.sink.events({ bus: frame.bus, seq: frame.seq, ts: frame.ts, payload: frame.payload });
  }

  /** Stops receiving; storage keeps what comes meanwhile. */
  pause(): void {
    if (this.paused || this.closed) return;
    this.paused = true;
    const sub = this.serverSub;
    this.serverSub = undefined;
    if (sub) void this.channel.unbind(sub);
  }

  /** Subscribes again after the cursor. */
  resume(): void {
    if (!this.paused || this.closed) return;
    this.paused = false;
    this.attach();
  }

  end(): void {
    this.markStarted();
    if (this.closed) return;
    this.closed = true;
    this.sink.done();
  }

  /** Ends the subscription; resolves once the server has stopped it. */
  close(): Promise<void> {
    this.markStarted();
    if (this.closed) return Promise.resolve();
    this.closed = true;
    const sub = this.serverSub;
    this.serverSub = undefined;
    const stopped = sub ? this.channel.unbind(sub) : Promise.resolve();
    return stopped.finally(() => this.channel.remove(this));
  }
}

function report(err: unknown): void {
  // A handler's exception must not break the delivery of later events; surface it as the platform does.
  (globalThis as { reportError?: (e: unknown) => void }).reportError?.(err);
}

const HIGH_WATER = 1000;

/**
 * The remote method of stream operation `op` over `channel`. `started` is told of each new
 * stream's first attempt: the client holds later calls until it settled, so a call made after
 * `subscribe()` is seen by the stream, as it is locally.
 */
export function remoteStream(
  channel: SocketChannel,
  started: (attempt: Promise<void>) => void,
  op: string,
): StreamMethod<SubscribeArgs, () => Promise<void>> {
  function subscribe(args: SubscribeArgs, handler: (event: BusEvent) => void): () => Promise<void>;
  function subscribe(args?: SubscribeArgs): BusEventStream;
  function subscribe(
    args: SubscribeArgs = {},
    handler?: (event: BusEvent) => void,
  ): (() => Promise<void>) | BusEventStream {
    if (handler) {
      const sub = new RemoteSubscription(channel, op, args.bus ?? DEFAULT_BUS, args.after, {
        events: (e) => {
          try {
            handler(e);
          } catch (err) {
            report(err);
          }
        },
        fail: report,
        done: () => {},
      });
      channel.add(sub);
      started(sub.started);
      return () => sub.close();
    }
    const stream = iterate(channel, op, args);
    started(stream.started);
    return stream;
  }
  return subscribe;
}

function iterate(channel: SocketChannel, op: string, args: SubscribeArgs): BusEventStream & { started: Promise<void> } {
  const it: EventIterator<BusEvent, BusEvent> = new EventIterator<BusEvent, BusEvent>(
    { resume: () => sub.resume(), close: () => void sub.close() },
    (e) => e,
    { maxItems: HIGH_WATER },
  );
  const sub = new RemoteSubscription(channel, op, args.bus ?? DEFAULT_BUS, args.after, {
    events: (e) => {
      if (!it.push(e)) sub.pause();
    },
    fail: (err) => it.fail(err),
    done: () => it.end(),
  });
  channel.add(sub);
  return Object.assign(it.stream, { started: sub.started });
}
