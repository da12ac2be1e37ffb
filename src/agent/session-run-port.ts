/**
 * The agent loop's storage and inbox, over the session tables: each message is stored as it
 * arrives (one transaction each), and steering and follow-up messages leave the session's
 * durable queue in the same transaction that stores them as user messages.
 *
 * The inbox is looked at after every stored message of the run (before a call starts, at a
 * turn's end), and almost always holds nothing. On PostgreSQL the statement that stores a
 * message also says what waits in the queue, and the inbox's next look uses that answer instead
 * of a statement of its own: the look is as fresh as it was (it comes right after the append,
 * and another node's steering committed a moment later is taken at the next look, as before).
 * An answer is used once; a look with none reads the queue.
 */
import type { RunInbox, RunStorePort } from "./agent-loop.js";
import { itemMessage } from "./output-items.js";
import type { Message, NewMessage } from "./session-schemas.js";
import type { QueueWaiting, SessionStore } from "./session-store.js";

/** The storage and inbox of run `runId` in session `sessionId`, sharing what the last append saw waiting. */
export function sessionRunPorts(
  store: SessionStore,
  sessionId: string,
  runId: string,
): {
  first(text: string, after: number): Promise<{ message: Message; newer?: Message[] }>;
  store: RunStorePort;
  inbox: RunInbox;
} {
  let seen: QueueWaiting | undefined;
  /** What the last append saw waiting, once. */
  const look = () => {
    const s = seen;
    seen = undefined;
    return s;
  };
  const append = async (m: NewMessage) => {
    const { message, waiting } = await store.appendWatched(sessionId, m);
    seen = waiting;
    return message;
  };
  return {
    /**
     * Stores the run's first message and reads, in the same statement, what others stored after
     * seq `after` (PostgreSQL; `newer` is undefined on SQLite, where the caller reads it).
     */
    first: async (text: string, after: number) => {
      const { message, waiting, newer } = await store.appendCatchingUp(sessionId, { runId, role: "user", text }, after);
      seen = waiting;
      return { message, newer };
    },
    store: {
      append: (m) => append({ ...m, runId }),
      appendItem: (item) => append(itemMessage(runId, item)),
    },
    inbox: {
      steering: async () => (look()?.steering === false ? [] : store.queue.deliver(sessionId, runId, "steer")),
      hasSteering: async () => look()?.steering ?? store.queue.has(sessionId, "steer"),
      // One follow-up at a time, each answered before the next is delivered.
      followUp: () => {
        seen = undefined;
        return store.queue.deliver(sessionId, runId, "follow_up", 1);
      },
      waiting: async () => look() ?? store.queue.waiting(sessionId),
    },
  };
}
