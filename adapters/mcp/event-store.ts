/**
 * The resumable server stream's memory: every SSE event of one MCP session, kept per stream so
 * a client that lost its stream (or was asked to poll) reconnects with Last-Event-ID and gets
 * what it missed. Bounded: past `maxEvents` the oldest events are dropped.
 */
import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

interface Stored {
  id: EventId;
  message: JSONRPCMessage;
}

/** Default number of events one session keeps for replay. */
export const DEFAULT_REPLAY_EVENTS = 1000;

/** An in-memory, bounded EventStore for one session. Event ids are `<streamId>_<n>`. */
export class MemoryEventStore implements EventStore {
  private seq = 0;
  private count = 0;
  private readonly streams = new Map<StreamId, Stored[]>();

  constructor(private readonly maxEvents = DEFAULT_REPLAY_EVENTS) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}_${++this.seq}`;
    let events = this.streams.get(streamId);
    if (!events) {
      events = [];
      this.streams.set(streamId, events);
    }
    events.push({ id, message });
    if (++this.count > this.maxEvents) this.dropOldest();
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
    return streamId;
  }

  /** Drops the oldest kept event (streams were inserted in order, so the first is the oldest). */
  private dropOldest(): void {
    for (const [streamId, events] of this.streams) {
      events.shift();
      this.count--;
      if (events.length === 0) this.streams.delete(streamId);
      return;
    }
  }
}
