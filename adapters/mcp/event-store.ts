/**
 * The resumable server stream's memory: every SSE event of one MCP session, kept per stream so
 * a client that lost its stream (or was asked to poll) reconnects with Last-Event-ID and gets
 * what it missed. Bounded: past `maxEvents` the oldest events are dropped.
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
  ) {}

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
    events.push({ id, message });
    if (++this.count > this.maxEvents) this.dropOldest();
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
  private dropOldest(): void {
    for (const [streamId, events] of this.streams) {
      events.shift();
      this.count--;
      if (events.length === 0) {
        this.streams.delete(streamId);
        this.resumedAt.delete(streamId);
      }
      return;
    }
  }
}
