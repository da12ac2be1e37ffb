/**
 * The durable queue of a session's acknowledged messages: prompts waiting for their run,
 * steering and follow-up messages waiting for a turn boundary. A message is written here before
 * its operation answers, and leaves in the same transaction that stores it as a user message,
 * so it is delivered exactly once, across restarts and compactions.
 */
import type { Db } from "../store/db.js";
import type { Message } from "./session-schemas.js";
import type { SessionStore } from "./session-store.js";

/** What waits in the queue. */
export type QueueKind = "prompt" | "steer" | "follow_up";

interface QueueRow {
  id: number;
  session_id: string;
  kind: QueueKind;
  text: string;
}

/** Counts of waiting messages. */
export interface PendingCounts {
  prompts: number;
  steering: number;
  followUp: number;
}

/** Prepared statements over `session_queue`. */
export class SessionQueueStore {
  private readonly s;

  constructor(
    private readonly db: Db,
    private readonly messages: SessionStore,
  ) {
    this.s = {
      insert: db.prepare<[string, string, string, number]>(
        "INSERT INTO session_queue (session_id, kind, text, created_at) VALUES (?, ?, ?, ?)",
      ),
      ofKind: db.prepare<[string, string, number], QueueRow>(
        "SELECT * FROM session_queue WHERE session_id = ? AND kind = ? ORDER BY id LIMIT ?",
      ),
      byId: db.prepare<[number], QueueRow>("SELECT * FROM session_queue WHERE id = ?"),
      remove: db.prepare<[number]>("DELETE FROM session_queue WHERE id = ?"),
      has: db.prepare<[string, string], { one: number }>(
        "SELECT 1 AS one FROM session_queue WHERE session_id = ? AND kind = ? LIMIT 1",
      ),
      counts: db.prepare<[string], { kind: QueueKind; n: number }>(
        "SELECT kind, COUNT(*) AS n FROM session_queue WHERE session_id = ? GROUP BY kind",
      ),
      clear: db.prepare<[string]>("DELETE FROM session_queue WHERE session_id = ? AND kind IN ('steer', 'follow_up')"),
      prompts: db.prepare<[], QueueRow>("SELECT * FROM session_queue WHERE kind = 'prompt' ORDER BY id"),
    };
  }

  /** Stores a message; returns its row id. */
  add(sessionId: string, kind: QueueKind, text: string): number {
    return Number(this.s.insert.run(sessionId, kind, text, Date.now()).lastInsertRowid);
  }

  /** True when a message of `kind` waits. */
  has(sessionId: string, kind: QueueKind): boolean {
    return this.s.has.get(sessionId, kind) !== undefined;
  }

  /** Waiting messages per kind. */
  counts(sessionId: string): PendingCounts {
    const c: PendingCounts = { prompts: 0, steering: 0, followUp: 0 };
    for (const r of this.s.counts.all(sessionId)) {
      if (r.kind === "prompt") c.prompts = r.n;
      else if (r.kind === "steer") c.steering = r.n;
      else c.followUp = r.n;
    }
    return c;
  }

  /** The text of a waiting message. */
  text(id: number): string | undefined {
    return this.s.byId.get(id)?.text;
  }

  /** Moves up to `limit` steering or follow-up messages into the history, in order. */
  deliver(sessionId: string, runId: string, kind: "steer" | "follow_up", limit = -1): Message[] {
    return this.db.transaction(() =>
      this.s.ofKind.all(sessionId, kind, limit).map((r) => {
        this.s.remove.run(r.id);
        return this.messages.append(sessionId, { runId, role: "user", text: r.text });
      }),
    )();
  }

  /** Moves a waiting prompt into the history as its run's first message. */
  deliverPrompt(id: number, runId: string): Message {
    return this.db.transaction(() => {
      const r = this.s.byId.get(id);
      if (!r) throw new Error(`queued prompt ${id} is gone`);
      this.s.remove.run(id);
      return this.messages.append(r.session_id, { runId, role: "user", text: r.text });
    })();
  }

  /** Drops a waiting prompt (its caller cancelled it before it ran); false when already gone. */
  dropPrompt(id: number): boolean {
    return this.s.remove.run(id).changes > 0;
  }

  /** Drops waiting steering and follow-up messages; returns how many. */
  clear(sessionId: string): number {
    return this.s.clear.run(sessionId).changes;
  }

  /** Every waiting prompt, oldest first (restart recovery). */
  allPrompts(): Array<{ id: number; sessionId: string }> {
    return this.s.prompts.all().map((r) => ({ id: r.id, sessionId: r.session_id }));
  }
}
