/**
 * One streaming peer (a WebSocket or a stdio pair): turns each incoming text frame into
 * `claw.do`, pipelined (no frame waits for the one before it), sends each response when it is
 * ready, and owns the streams that stream operations open on it (each drained under the one
 * backpressure contract, its items encoded as event frames by wire.ts) and the abort signal of
 * its in-flight calls. The transports around it only move frames and decide what "too slow"
 * means.
 */

import { randomUUID } from "node:crypto";
import type { ScopedGrant } from "../src/access/scoped-tokens.js";
import type { StoredEvent } from "../src/bus/event-store.js";
import type { Claw } from "../src/claw/claw.js";
import { ClawError } from "../src/core/errors.js";
import { pipeStream, type StreamSource } from "../src/core/stream.js";
import { encodeEventFrame, encodeResponse, errorResponse, idOf, parseJson } from "../src/core/wire.js";
import type { Connection, Transport } from "../src/ops/registry.js";

/** What a stream has delivered so far (for resuming with `after`). */
export interface DeliveredCursor {
  sub: string;
  bus: string;
  /** Seq of the last event handed to the transport (0 when none yet). */
  lastSeq: number;
}

/** How a transport moves frames. */
export interface PeerTransport {
  transport: Transport;
  /** The scoped token the connection was opened with; every call is checked against it. Default: none (full access) */
  grant?: ScopedGrant;
  /** Sends a response or notice frame. */
  sendFrame(text: string): void;
  /**
   * Sends an event frame of stream `sub`. Returns false when the peer is too slow; the
   * transport then decides (cut the stream or the whole connection) and the event is not sent.
   */
  sendEvent(text: string, sub: string): boolean;
  /** True while frames queue faster than the peer reads them (backlog delivery pauses). */
  congested(): boolean;
  /** Calls `fn` once, after the queued frames have drained (never synchronously). */
  onDrain(fn: () => void): void;
  /** Max streams (subscriptions) open at once. */
  maxSubscriptions: number;
  /**
   * Calls in flight past which a new frame is answered `too_many_requests` at once (transports
   * that can pause reading, like stdio, apply backpressure instead). Default: no limit
   */
  maxInFlight?: number;
}

/** One open stream of the peer: its source and what it has delivered. */
interface OpenStream {
  source: StreamSource;
  cursor: DeliveredCursor;
}

/** A live peer. */
export class Peer {
  /** The connection handed to operations: stream operations attach their streams to it. */
  readonly connection: Connection;
  private readonly abort = new AbortController();
  private readonly streams = new Map<string, OpenStream>();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private closedFlag = false;

  constructor(
    private readonly claw: Claw,
    private readonly t: PeerTransport,
  ) {
    this.connection = {
      attach: (source, bus) => this.attach(source, bus),
      detach: (sub) => this.detach(sub),
    };
  }

  /** Calls in progress. */
  get pending(): number {
    return this.inFlight;
  }

  /** Streams open. */
  get streamCount(): number {
    return this.streams.size;
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
      .do(value, {
        transport: this.t.transport,
        signal: this.abort.signal,
        connection: this.connection,
        grant: this.t.grant,
      })
      .then((response) => {
        if (!this.closedFlag) this.t.sendFrame(encodeResponse(response));
        else this.closeStreams(); // a stream attached after the close must not leak
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

  /** The last delivered seq of every stream still open. */
  delivered(): DeliveredCursor[] {
    return [...this.streams.values()].map((s) => ({ ...s.cursor }));
  }

  /** Closes one stream (the transport found it too slow); returns what it delivered. */
  cutSubscription(sub: string): DeliveredCursor | undefined {
    const stream = this.streams.get(sub);
    if (!stream) return undefined;
    this.detach(sub);
    return stream.cursor;
  }

  /** Ends the peer: streams closed, in-flight calls' signals aborted, no more frames sent. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.closeStreams();
    this.abort.abort(new ClawError("cancelled", "the connection closed"));
  }

  private closeStreams(): void {
    for (const s of this.streams.values()) s.source.close();
    this.streams.clear();
  }

  private attach(source: StreamSource, bus: string): string {
    if (this.streams.size >= this.t.maxSubscriptions) {
      throw new ClawError(
        "too_many_requests",
        `this connection already has ${this.streams.size} subscriptions (limit ${this.t.maxSubscriptions})`,
        { limit: this.t.maxSubscriptions },
      );
    }
    const sub = `sub_${randomUUID().slice(0, 8)}`;
    const stream: OpenStream = { source, cursor: { sub, bus, lastSeq: 0 } };
    this.streams.set(sub, stream);
    pipeStream(source, {
      write: (e: StoredEvent) => {
        // A stream cut earlier in the same delivery batch: drop the rest of the batch.
        if (this.closedFlag || !this.streams.has(sub)) return false;
        if (!this.t.sendEvent(encodeEventFrame(sub, e), sub)) return false;
        stream.cursor.lastSeq = e.seq;
        return true;
      },
      congested: () => this.t.congested(),
      onDrain: (fn) => this.t.onDrain(fn),
    });
    return sub;
  }

  private detach(sub: string): boolean {
    const stream = this.streams.get(sub);
    if (!stream) return false;
    this.streams.delete(sub);
    stream.source.close();
    return true;
  }
}
