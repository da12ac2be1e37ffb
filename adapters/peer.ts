/**
 * One streaming peer (a WebSocket or a stdio pair): turns each incoming text frame into
 * `claw.do`, pipelined (no frame waits for the one before it), sends each response when it is
 * ready, and owns the peer's subscriptions and the abort signal of its in-flight calls. The
 * transports around it only move frames and decide what "too slow" means.
 */
import type { Claw } from "../src/claw.js";
import { ClawError } from "../src/errors.js";
import type { Connection, Transport } from "../src/registry.js";
import { encodeResponse, errorResponse, idOf, parseJson } from "../src/wire.js";

/** What a subscription has delivered so far (for resuming with `after`). */
export interface DeliveredCursor {
  sub: string;
  bus: string;
  /** Seq of the last event handed to the transport (0 when none yet). */
  lastSeq: number;
}

/** How a transport moves frames. */
export interface PeerTransport {
  transport: Transport;
  /** Sends a response or notice frame. */
  sendFrame(text: string): void;
  /**
   * Sends an event frame of subscription `sub`. Returns false when the peer is too slow; the
   * transport then decides (cut the subscription or the whole connection) and the event is
   * not sent.
   */
  sendEvent(text: string, sub: string): boolean;
  /** True while frames queue faster than the peer reads them (backlog delivery pauses). */
  congested(): boolean;
  /** Calls `fn` once, after the queued frames have drained (never synchronously). */
  onDrain(fn: () => void): void;
  /** Max subscriptions. */
  maxSubscriptions: number;
  /**
   * Calls in flight past which a new frame is answered `too_many_requests` at once (transports
   * that can pause reading, like stdio, apply backpressure instead). Default: no limit
   */
  maxInFlight?: number;
}

// The frame is built by eventFrameJson in src/ops/bus.ts: {"event":"bus","sub":"…","bus":"…","seq":N,…
const EVENT_PREFIX = /^\{"event":"bus","sub":("(?:[^"\\]|\\.)*"),"bus":("(?:[^"\\]|\\.)*"),"seq":(\d+)/;

/** A live peer. */
export class Peer {
  /** The connection handed to operations (subscribe/unsubscribe use it). */
  readonly connection: Connection;
  private readonly abort = new AbortController();
  private readonly cursors = new Map<string, DeliveredCursor>();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private closedFlag = false;

  constructor(
    private readonly claw: Claw,
    private readonly t: PeerTransport,
  ) {
    const subscriptions = new Map<string, () => void>();
    this.connection = {
      subscriptions,
      maxSubscriptions: t.maxSubscriptions,
      send: (json) => this.pushEvent(json),
      congested: () => t.congested(),
      onDrain: (fn) => t.onDrain(fn),
    };
  }

  /** Calls in progress. */
  get pending(): number {
    return this.inFlight;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** Handles one incoming frame of text. Never throws; every frame gets exactly one response. */
  receive(text: string): void {
    if (this.closedFlag) return;
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (err) {
      this.t.sendFrame(encodeResponse(errorResponse(null, err)));
      return;
    }
    const max = this.t.maxInFlight;
    if (max !== undefined && this.inFlight >= max) {
      const err = new ClawError(
        "too_many_requests",
        `${this.inFlight} calls are in flight on this connection, its limit (--max-calls-per-connection); wait for some answers`,
        { limit: max, scope: "connection" },
      );
      this.t.sendFrame(encodeResponse(errorResponse(idOf(value), err)));
      return;
    }
    this.inFlight++;
    this.claw
      .do(value, { transport: this.t.transport, signal: this.abort.signal, connection: this.connection })
      .then((response) => {
        if (!this.closedFlag) this.t.sendFrame(encodeResponse(response));
        else this.cancelAll(); // a handler that subscribed after the close must not leak
      })
      .catch((err: unknown) => {
        // Encoding or sending failed (a result too large to encode, a transport that threw):
        // the caller gets an error frame, and nothing becomes an unhandled rejection.
        if (this.closedFlag) return;
        try {
          this.t.sendFrame(encodeResponse(errorResponse(idOf(value), err)));
        } catch {
          // the transport is gone; its close ends the peer
        }
      })
      .finally(() => {
        if (--this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
  }

  /** Answers a frame that could not even be read (too large, not text). */
  reject(err: ClawError): void {
    if (!this.closedFlag) this.t.sendFrame(encodeResponse(errorResponse(null, err)));
  }

  /** Resolves when no call is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The last delivered seq of every subscription still open. */
  delivered(): DeliveredCursor[] {
    return [...this.cursors.values()].filter((c) => this.connection.subscriptions.has(c.sub));
  }

  /** Cancels one subscription (the transport found it too slow); returns its cursor. */
  cutSubscription(sub: string): DeliveredCursor | undefined {
    const cancel = this.connection.subscriptions.get(sub);
    cancel?.();
    this.connection.subscriptions.delete(sub);
    const cursor = this.cursors.get(sub);
    this.cursors.delete(sub);
    return cursor;
  }

  /** Ends the peer: subscriptions cancelled, in-flight calls' signals aborted, no more frames sent. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.cancelAll();
    this.abort.abort(new ClawError("cancelled", "the connection closed"));
  }

  private cancelAll(): void {
    for (const cancel of this.connection.subscriptions.values()) cancel();
    this.connection.subscriptions.clear();
  }

  /** Forgets cursors of subscriptions that were unsubscribed, so the map stays bounded. */
  private pruneCursors(): void {
    if (this.cursors.size < this.connection.subscriptions.size + 16) return;
    for (const sub of this.cursors.keys()) if (!this.connection.subscriptions.has(sub)) this.cursors.delete(sub);
  }

  private pushEvent(json: string): boolean {
    if (this.closedFlag) return false;
    const m = EVENT_PREFIX.exec(json);
    if (!m) {
      // Not a bus event frame: pass it through without cursor tracking.
      this.t.sendFrame(json);
      return true;
    }
    const sub = JSON.parse(m[1]!) as string;
    // A subscription cut earlier in the same delivery batch: drop the rest of the batch.
    if (!this.connection.subscriptions.has(sub)) return false;
    if (!this.t.sendEvent(json, sub)) return false;
    let cursor = this.cursors.get(sub);
    if (!cursor) {
      this.pruneCursors();
      cursor = { sub, bus: JSON.parse(m[2]!) as string, lastSeq: 0 };
      this.cursors.set(sub, cursor);
    }
    cursor.lastSeq = Number(m[3]);
    return true;
  }
}
