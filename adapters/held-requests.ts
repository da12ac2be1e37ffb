/**
 * Requests that reach `serve` between binding its port and opening its database. Node drops a
 * request no "request" listener takes, and its client then waits for ever (a restart under
 * load, a client retrying while the database recovers), so they are held here in arrival order
 * and handed to the handler once it is attached, before any later request. Bounded: past
 * MAX_HELD waiting, or after HOLD_MS, a request is answered `starting` (503, retryable,
 * Retry-After: 1), as is every request still held when the server closes without answering.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { ClawError } from "../src/core/errors.js";
import { encodeResponse, errorResponse } from "../src/core/wire.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Most requests held at once: each is a socket and its parsed headers, nothing more. */
export const MAX_HELD = 1024;
/** Longest a request is held before it is answered `starting`. */
export const HOLD_MS = 30_000;

interface Held {
  req: IncomingMessage;
  res: ServerResponse;
  timer: ReturnType<typeof setTimeout>;
}

/** Holds `server`'s requests until `release` gives them a handler. */
export class HeldRequests {
  private readonly held = new Set<Held>();
  private readonly hold: Handler = (req, res) => this.take(req, res);

  constructor(
    private readonly server: Server,
    private readonly limits: { maxHeld: number; holdMs: number } = { maxHeld: MAX_HELD, holdMs: HOLD_MS },
  ) {
    server.on("request", this.hold);
  }

  /** Requests waiting now. */
  get size(): number {
    return this.held.size;
  }

  /** From now on `handler` answers; the held requests go to it first, in arrival order. */
  release(handler: Handler): void {
    this.server.off("request", this.hold);
    this.server.on("request", handler);
    for (const h of this.drain()) if (!h.res.destroyed) handler(h.req, h.res);
  }

  /** Answers every held request `starting` and stops holding (the server closes unanswered). */
  refuseAll(): void {
    this.server.off("request", this.hold);
    for (const h of this.drain()) refuse(h.req, h.res);
  }

  private take(req: IncomingMessage, res: ServerResponse): void {
    if (this.held.size >= this.limits.maxHeld) {
      refuse(req, res);
      return;
    }
    const h: Held = {
      req,
      res,
      timer: setTimeout(() => {
        this.held.delete(h);
        refuse(req, res);
      }, this.limits.holdMs),
    };
    h.timer.unref();
    this.held.add(h);
    res.once("close", () => {
      // The client gave up while waiting: nothing to answer.
      if (this.held.delete(h)) clearTimeout(h.timer);
    });
  }

  private drain(): Held[] {
    const all = [...this.held];
    this.held.clear();
    for (const h of all) clearTimeout(h.timer);
    return all;
  }
}

function refuse(req: IncomingMessage, res: ServerResponse): void {
  req.resume(); // an unread body must not hold the connection
  if (res.headersSent || res.destroyed) return;
  const body = encodeResponse(
    errorResponse(null, new ClawError("starting", "the server is still opening its database; retry in a second")),
  );
  res.writeHead(503, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "retry-after": "1",
  });
  res.end(body);
}
