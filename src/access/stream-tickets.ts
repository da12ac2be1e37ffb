/**
 * Stream tickets: a browser cannot give EventSource or WebSocket a header, and a long-lived
 * token in a URL ends up in history, logs and Referer headers. A ticket is minted through /do
 * (with the token in a header), is valid for one GET stream (SSE, the WebSocket upgrade) within
 * a short time, and is gone once used. Tickets live in memory only.
 */
import { createHash, randomBytes } from "node:crypto";
import { ClawError } from "../core/errors.js";

/** Prefix of every ticket. */
export const TICKET_PREFIX = "clawtkt_";

/** Options of {@link StreamTickets}. */
export interface StreamTicketOptions {
  /** How long a ticket stays valid. Default: 60 000 ms */
  ttlMs?: number;
  /** Unused tickets kept at once; past it minting answers `too_many_requests`. Default: 10 000 */
  maxOutstanding?: number;
  /** The clock (tests pass their own). Default: Date.now */
  now?: () => number;
}

/** A minted ticket. */
export interface MintedTicket {
  ticket: string;
  /** Epoch ms after which it is refused. */
  expiresAt: number;
}

const keyOf = (ticket: string) => createHash("sha256").update(ticket).digest("base64");

/** The outstanding tickets of one claw. */
export class StreamTickets {
  private readonly outstanding = new Map<string, number>(); // key → expiresAt, in minting order
  readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: StreamTicketOptions = {}) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.max = options.maxOutstanding ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Unused, unexpired tickets (after dropping expired ones). */
  get size(): number {
    this.prune();
    return this.outstanding.size;
  }

  /** Mints a single-use ticket. */
  mint(): MintedTicket {
    this.prune();
    if (this.outstanding.size >= this.max)
      throw new ClawError(
        "too_many_requests",
        `${this.outstanding.size} stream tickets are outstanding; use or let some expire (each lasts ${this.ttlMs / 1000} s)`,
        { limit: this.max, scope: "stream_tickets" },
      );
    const ticket = `${TICKET_PREFIX}${randomBytes(24).toString("base64url")}`;
    const expiresAt = this.now() + this.ttlMs;
    this.outstanding.set(keyOf(ticket), expiresAt);
    return { ticket, expiresAt };
  }

  /** Uses a ticket up: true when it was outstanding and unexpired (it is gone either way). */
  consume(ticket: string): boolean {
    const key = keyOf(ticket);
    const expiresAt = this.outstanding.get(key);
    this.outstanding.delete(key);
    return expiresAt !== undefined && this.now() <= expiresAt;
  }

  /** Expired tickets go first: the map keeps minting order, and every ticket has the same lifetime. */
  private prune(): void {
    const now = this.now();
    for (const [key, expiresAt] of this.outstanding) {
      if (expiresAt >= now) break;
      this.outstanding.delete(key);
    }
  }
}
