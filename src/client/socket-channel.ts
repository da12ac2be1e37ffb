/**
 * The remote client's one WebSocket, for subscriptions: requests matched by id, event frames
 * routed to their subscription. When the socket drops (network, a 4008 slow-consumer close, a
 * server restart) it reconnects with backoff and every subscription subscribes again after the
 * last seq it delivered. It opens with the first subscription and closes with the last one.
 */
import { ClawError, type WireError } from "../core/errors.js";
import { fromWire } from "./http-call.js";
import { checkServerFrame } from "./server-frame.js";

/** The part of a WebSocket the client uses: the browser's, Node 22's, or the `ws` package's. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code?: number }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

/** A WebSocket constructor. */
export type WebSocketCtor = new (url: string) => SocketLike;

/** One subscription as the channel sees it. */
export interface ChannelMember {
  /** The channel is open (again): subscribe on it. */
  attach(): void;
  /** The connection is gone; a later `attach` follows when it is back. */
  detach(): void;
  /** An event frame of this member's server-side subscription. */
  receive(frame: EventFrame): void;
  /** The client closed for good. */
  end(): void;
}

/** A bus event frame as the server sends it. */
export interface EventFrame {
  event: "bus";
  sub: string;
  bus: string;
  seq: number;
  ts: number;
  payload: unknown;
}

const MAX_BACKOFF_MS = 5000;

/** The reconnecting socket shared by a client's subscriptions. */
export class SocketChannel {
  private socket?: SocketLike;
  private open = false;
  private closed = false;
  private attempt = 0;
  private timer?: ReturnType<typeof setTimeout>;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve(v: unknown): void; reject(e: unknown): void; onResult?: (result: unknown) => void }
  >();
  private readonly members = new Set<ChannelMember>();
  private readonly bound = new Map<string, ChannelMember>();
  /** Frames that arrived before their subscribe response (kept only while a subscribe is in flight). */
  private readonly early = new Map<string, EventFrame[]>();
  private subscribing = 0;
  /** Increases with every connection; a response from an older one is stale. */
  generation = 0;

  /** @param WebSocketImpl undefined on a platform without one: calls work, subscribing throws. */
  constructor(
    private readonly url: string,
    private readonly WebSocketImpl: WebSocketCtor | undefined,
  ) {}

  /** Adds a subscription; it is attached as soon as the socket is open. Throws without a WebSocket. */
  add(member: ChannelMember): void {
    if (!this.WebSocketImpl)
      throw new ClawError(
        "invalid_args",
        "no WebSocket on this platform; pass options.WebSocket (e.g. the ws package)",
      );
    if (this.closed) {
      member.end();
      return;
    }
    this.members.add(member);
    if (this.open) member.attach();
    else this.connect();
  }

  /** Removes a subscription; the socket closes with the last one. */
  remove(member: ChannelMember): void {
    this.members.delete(member);
    for (const [sub, m] of this.bound) if (m === member) this.bound.delete(sub);
    if (this.members.size === 0 && this.pending.size === 0) this.disconnect();
  }

  /** Routes the frames of server-side subscription `sub` to `member` (those that came early first). */
  bind(sub: string, member: ChannelMember): void {
    this.bound.set(sub, member);
    const early = this.early.get(sub);
    this.early.delete(sub);
    for (const f of early ?? []) member.receive(f);
  }

  /** Stops routing `sub` and asks the server to end it (best effort: a closed socket ended it already). */
  unbind(sub: string): Promise<void> {
    this.bound.delete(sub);
    if (!this.open) return Promise.resolve();
    return this.request("unsubscribe", { sub }).then(
      () => {},
      () => {},
    );
  }

  /**
   * Sends a request on the open socket; rejects with `connection_failed` if it closes first.
   * `onResult` runs synchronously when the success frame arrives, before any later frame is
   * handled (a subscription binds there, so none of its events slips past).
   */
  request(op: string, args: unknown, onResult?: (result: unknown) => void): Promise<unknown> {
    const socket = this.socket;
    if (!this.open || !socket) return Promise.reject(new ClawError("connection_failed", "the WebSocket is not open"));
    const id = this.nextId++;
    const subscribing = op === "subscribe";
    if (subscribing) this.subscribing++;
    const settled = () => {
      if (subscribing && --this.subscribing === 0) this.early.clear();
      if (this.members.size === 0 && this.pending.size === 0) this.disconnect();
    };
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, {
        resolve,
        reject: (err) => {
          settled();
          reject(err);
        },
        onResult: (result) => {
          onResult?.(result);
          settled();
        },
      });
      socket.send(JSON.stringify({ op, args, id }));
    });
  }

  /** A subscription was confirmed: the connection works, so the next drop starts backing off from the beginning. */
  confirmed(): void {
    this.attempt = 0;
  }

  /** Closes for good: every subscription ends. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    for (const m of [...this.members]) m.end();
    this.members.clear();
    this.disconnect();
  }

  private connect(): void {
    if (this.closed || this.socket || this.timer || !this.WebSocketImpl) return;
    let socket: SocketLike;
    try {
      socket = new this.WebSocketImpl(this.url);
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.open = true;
      this.generation++;
      for (const m of [...this.members]) m.attach();
    };
    socket.onmessage = (ev) => this.onFrame(typeof ev.data === "string" ? ev.data : String(ev.data));
    socket.onerror = () => {}; // the close event follows and decides
    socket.onclose = () => this.onClosed(socket);
  }

  private disconnect(): void {
    const socket = this.socket;
    if (!socket) return;
    this.onClosed(socket);
    try {
      socket.close(1000, "client done");
    } catch {
      // never opened
    }
  }

  private onClosed(socket: SocketLike): void {
    if (this.socket !== socket) return;
    socket.onopen = socket.onmessage = socket.onclose = null;
    this.socket = undefined;
    this.open = false;
    this.bound.clear();
    this.early.clear();
    const lost = new ClawError("connection_failed", "the WebSocket closed");
    for (const p of this.pending.values()) p.reject(lost);
    this.pending.clear();
    for (const m of this.members) m.detach();
    if (this.members.size > 0) this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    const base = Math.min(MAX_BACKOFF_MS, 50 * 2 ** this.attempt++);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.connect();
      },
      base / 2 + Math.random() * (base / 2),
    );
  }

  private onFrame(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return; // not ours to answer: the server only sends JSON
    }
    const checked = checkServerFrame(value);
    if ("error" in checked) {
      this.malformed(value, checked.error);
      return;
    }
    const frame = checked.frame;
    if ("event" in frame) {
      if (frame.event !== "bus" || !("sub" in frame)) return; // "closing" (4008): the close follows
      const f: EventFrame = { ...frame, event: "bus" };
      const member = this.bound.get(f.sub);
      if (member) member.receive(f);
      else if (this.subscribing > 0) {
        const list = this.early.get(f.sub) ?? [];
        this.early.set(f.sub, list);
        list.push(f);
      }
      return;
    }
    if (typeof frame.id !== "number") return; // this client numbers its requests
    const waiter = this.pending.get(frame.id);
    if (!waiter) return;
    this.pending.delete(frame.id);
    if (frame.ok === true) {
      waiter.onResult?.(frame.result);
      waiter.resolve(frame.result);
    } else waiter.reject(fromWire(frame.error as WireError));
  }

  /** A frame no schema accepts: the request it answers (if it names one) fails; others are dropped. */
  private malformed(value: unknown, why: string): void {
    const id = (value as { id?: unknown } | null)?.id;
    const waiter = typeof id === "number" ? this.pending.get(id) : undefined;
    if (!waiter) return;
    this.pending.delete(id as number);
    waiter.reject(new ClawError("internal", `the server sent a malformed response: ${why}`));
  }
}
