/**
 * The agent loop's storage and inbox, over the session tables: each message is stored as it
 * arrives (one transaction each), and steering and follow-up messages leave the session's
 * durable queue in the same transaction that stores them as user messages.
 */
import type { RunInbox, RunStorePort } from "./agent-loop.js";
import { itemMessage } from "./output-items.js";
import type { SessionStore } from "./session-store.js";

/** Stores the messages of run `runId` in session `sessionId`. */
export function sessionRunStore(store: SessionStore, sessionId: string, runId: string): RunStorePort {
  return {
    append: (m) => store.append(sessionId, { ...m, runId }),
    appendItem: (item) => store.append(sessionId, itemMessage(runId, item)),
  };
}

/** The session's durable queue, delivered into run `runId`. */
export function sessionRunInbox(store: SessionStore, sessionId: string, runId: string): RunInbox {
  return {
    steering: () => store.queue.deliver(sessionId, runId, "steer"),
    hasSteering: () => store.queue.has(sessionId, "steer"),
    // One follow-up at a time, each answered before the next is delivered.
    followUp: () => store.queue.deliver(sessionId, runId, "follow_up", 1),
    waiting: () => store.queue.waiting(sessionId),
  };
}
