/**
 * The resumable server stream's memory: every SSE event of one MCP session, kept per stream so
 * a client that lost its stream (or was asked to poll) reconnects with Last-Event-ID and gets
 * what it missed. Bounded in events and in bytes, per session and over every session sharing a
 * `ReplayBudget`: past a bound the oldest events are dropped (an answer of a few MB, such as a
 * `read` of large events, must not pile up in memory until the server dies).
 *
 * It also holds back the answer of a call whose stream the server closed (polling) until the
 * client has reconnected to that stream: the SDK ends a resumed stream when it writes the
 * stream's last answer, but a resumed stream whose answer was already stored before the client
 * came back would stay open, keep-alive and all, until the session ends.
 */
import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

interface Stored {
  id: EventId;
  message: JSONRPCMessage;
  bytes: number;
}

/** Default bytes one session keeps for replay (8 MiB). */
export const DEFAULT_REPLAY_BYTES = 8 * 1024 * 1024;
/** Default bytes every session of one /mcp mount keeps for replay together (64 MiB). */
export const DEFAULT_REPLAY_TOTAL_BYTES = 64 * 1024 * 1024;

/** The replay bytes shared by the sessions of one mount: past `maxBytes` the largest store gives up its oldest. */
export class ReplayBudget {
  used = 0;
  readonly stores = new Set<MemoryEventStore>();
  constructor(readonly maxBytes = DEFAULT_REPLAY_TOTAL_BYTES) {}

  /** Drops oldest events from the largest stores until the total fits. */
  enforce(): void {
    while (this.used > this.maxBytes) {
      let largest: MemoryEventStore | undefined;
      for (const s of this.stores) if (!largest || s.bytes > largest.bytes) largest = s;
      if (!largest || largest.bytes === 0) return;
      largest.dropOldestEvent();
    }
  }
}

/** Default number of events one session keeps for replay. */
export const DEFAULT_REPLAY_EVENTS = 1000;
/** Default longest wait, in ms, of a closed call's answer for the client to reconnect. */
export const DEFAULT_RESUME_WAIT_MS = 10_000;

function answerId(message: JSONRPCMessage): RequestId | undefined {
  return "id" in message && ("result" in message || "error" in message) ? message.id : undefined;
}

/** An in-memory, bounded EventStore for one session. Event ids are `<streamId>_<n>`. */
export class MemoryEventStore implements EventStore {
  private seq = 0;
  private count = 0;
  /** Bytes of the kept events (their JSON). */
  bytes = 0;
  private closed = false;
  private readonly streams = new Map<StreamId, Stored[]>();
  /** Calls whose stream the server closed, with the moment (a sequence number) it did. */
  private readonly detachedAt = new Map<RequestId, number>();
  /** The moment each stream was last resumed by the client. */
  private readonly resumedAt = new Map<StreamId, number>();
  private readonly waiters = new Map<StreamId, Set<() => void>>();

  constructor(
    private readonly maxEvents = DEFAULT_REPLAY_EVENTS,
    private readonly resumeWaitMs = DEFAULT_RESUME_WAIT_MS,
    private readonly maxBytes = DEFAULT_REPLAY_BYTES,
    private readonly budget?: ReplayBudget,
  ) {
    budget?.stores.add(this);
  }

  /** Notes that the server closed the stream of call `requestId` before answering it. */
  detached(requestId: RequestId): void {
    this.detachedAt.set(requestId, ++this.seq);
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}_${++this.seq}`;
    let events = this.streams.get(streamId);
    if (!events) {
      events = [];
      this.streams.set(streamId, events);
    }
    const bytes = JSON.stringify(message).length;
    events.push({ id, message, bytes });
    this.bytes += bytes;
    if (this.budget) this.budget.used += bytes;
    if (++this.count > this.maxEvents) this.dropOldestEvent();
    while (this.bytes > this.maxBytes && this.count > 0) this.dropOldestEvent();
    this.budget?.enforce();
    const request = answerId(message);
    if (request !== undefined) {
      const detached = this.detachedAt.get(request);
      this.detachedAt.delete(request);
      // Stored first, so the resume replays it; the SDK then sees the resumed stream, skips the
      // write it already replayed, and ends that stream.
      if (detached !== undefined && (this.resumedAt.get(streamId) ?? 0) < detached) await this.resumeOf(streamId);
    }
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    const streamId = eventId.slice(0, eventId.lastIndexOf("_"));
    return this.streams.has(streamId) ? streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? "";
    const events = this.streams.get(streamId) ?? [];
    const at = events.findIndex((e) => e.id === lastEventId);
    // An id older than what is kept: replay everything still kept of that stream.
    for (const e of events.slice(at + 1)) await send(e.id, e.message);
    this.resumedAt.set(streamId, ++this.seq);
    const waiting = this.waiters.get(streamId);
    this.waiters.delete(streamId);
    // After the SDK has registered the resumed stream, which it does right after this returns.
    if (waiting)
      setImmediate(() => {
        for (const wake of waiting) wake();
      });
    return streamId;
  }

  /** Wakes every held answer (the session is ending). */
  close(): void {
    this.closed = true;
    while (this.count > 0) this.dropOldestEvent();
    this.budget?.stores.delete(this);
    this.detachedAt.clear();
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.waiters.clear();
  }

  private resumeOf(streamId: StreamId): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      let set = this.waiters.get(streamId);
      if (!set) {
        set = new Set();
        this.waiters.set(streamId, set);
      }
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        resolve();
      };
      // A client that never comes back: the answer stays stored for a later resume.
      const timer = setTimeout(wake, this.resumeWaitMs);
      timer.unref();
      set.add(wake);
    });
  }

  /** Drops the oldest kept event (streams were inserted in order, so the first is the oldest). */
  dropOldestEvent(): void {
    for (const [streamId, events] of this.streams) {
      const dropped = events.shift();
      this.count--;
      if (dropped) {
        this.bytes -= dropped.bytes;
        if (this.budget) this.budget.used -= dropped.bytes;
      }
      if (events.length === 0) {
        this.streams.delete(streamId);
        this.resumedAt.delete(streamId);
      }
      return;
    }
  }
}
