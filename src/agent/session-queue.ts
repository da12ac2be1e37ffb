/**
 * The durable queue of a session's acknowledged messages: prompts waiting for their run,
 * steering and follow-up messages waiting for a turn boundary. A message is written here before
 * its operation answers, and leaves in the same transaction that stores it as a user message,
 * so it is delivered exactly once, across restarts and compactions.
 */
import { ownerGone, skipLocked } from "../nodes/owners.js";
import type { Sql } from "../store/sql.js";
import type { Narrow } from "../store/tables/columns.js";
import type { Row } from "../store/tables/tables.js";
import type { Message, NewMessage } from "./session-schemas.js";

/** Where delivered prompts become history (the session store, passed in). */
export interface MessageLog {
  append(sessionId: string, m: NewMessage, q?: Sql): Promise<Message>;
}

/** What waits in the queue. */
export type QueueKind = "prompt" | "steer" | "follow_up";

type QueueRow = Narrow<Pick<Row<"session_queue">, "id" | "session_id" | "kind" | "text">, { kind: QueueKind }>;

/** Counts of waiting messages. */
export interface PendingCounts {
  prompts: number;
  steering: number;
  followUp: number;
}

const S = {
  insert: "INSERT INTO session_queue (session_id, kind, text, created_at, node) VALUES (?, ?, ?, ?, ?) RETURNING id",
  ofKind: "SELECT id, session_id, kind, text FROM session_queue WHERE session_id = ? AND kind = ? ORDER BY id LIMIT ?",
  allOfKind: "SELECT id, session_id, kind, text FROM session_queue WHERE session_id = ? AND kind = ? ORDER BY id",
  byId: "SELECT id, session_id, kind, text FROM session_queue WHERE id = ?",
  remove: "DELETE FROM session_queue WHERE id = ?",
  has: "SELECT 1 AS one FROM session_queue WHERE session_id = ? AND kind = ? LIMIT 1",
  waiting: "SELECT DISTINCT kind FROM session_queue WHERE session_id = ? AND kind IN ('steer', 'follow_up')",
  counts: "SELECT kind, COUNT(*) AS n FROM session_queue WHERE session_id = ? GROUP BY kind",
  clear: "DELETE FROM session_queue WHERE session_id = ? AND kind IN ('steer', 'follow_up')",
} as const;

/** Statements over `session_queue`. */
export class SessionQueueStore {
  constructor(
    private readonly sql: Sql,
    private readonly messages: MessageLog,
    /** This process's node: the owner of the prompts it queues. */
    private readonly node: string,
  ) {}

  /** Stores a message; returns its row id. */
  async add(sessionId: string, kind: QueueKind, text: string): Promise<number> {
    const row = await this.sql.get<Pick<QueueRow, "id">>(S.insert, [sessionId, kind, text, Date.now(), this.node]);
    return Number(row!.id);
  }

  /** True when a message of `kind` waits. */
  async has(sessionId: string, kind: QueueKind): Promise<boolean> {
    return (await this.sql.get(S.has, [sessionId, kind])) !== undefined;
  }

  /** Whether steering and follow-up messages wait (one statement for both). */
  async waiting(sessionId: string): Promise<{ steering: boolean; followUp: boolean }> {
    const kinds = new Set((await this.sql.all<{ kind: QueueKind }>(S.waiting, [sessionId])).map((r) => r.kind));
    return { steering: kinds.has("steer"), followUp: kinds.has("follow_up") };
  }

  /** Waiting messages per kind. */
  async counts(sessionId: string): Promise<PendingCounts> {
    const c: PendingCounts = { prompts: 0, steering: 0, followUp: 0 };
    for (const r of await this.sql.all<Pick<QueueRow, "kind"> & { n: number }>(S.counts, [sessionId])) {
      if (r.kind === "prompt") c.prompts = r.n;
      else if (r.kind === "steer") c.steering = r.n;
      else c.followUp = r.n;
    }
    return c;
  }

  /** The text of a waiting message. */
  async text(id: number): Promise<string | undefined> {
    return (await this.sql.get<QueueRow>(S.byId, [id]))?.text;
  }

  /** Moves up to `limit` (default all) steering or follow-up messages into the history, in order, in one transaction. */
  async deliver(sessionId: string, runId: string, kind: "steer" | "follow_up", limit?: number): Promise<Message[]> {
    const waiting = (q: Sql) =>
      limit === undefined
        ? q.all<QueueRow>(S.allOfKind, [sessionId, kind])
        : q.all<QueueRow>(S.ofKind, [sessionId, kind, limit]);
    // Asked at every turn, and almost always empty: one read says so, without a transaction
    // (BEGIN, the read, COMMIT: three round trips on PostgreSQL). What it finds is read again,
    // and taken, inside the transaction.
    if ((await waiting(this.sql)).length === 0) return [];
    return this.sql.tx(async (q) => {
      const rows = await waiting(q);
      const delivered: Message[] = [];
      for (const r of rows) {
        // Another node's delivery may have taken it first: only the remover stores it.
        if ((await q.run(S.remove, [r.id])).changes === 0) continue;
        delivered.push(await this.messages.append(sessionId, { runId, role: "user", text: r.text }, q));
      }
      return delivered;
    });
  }

  /** Moves a waiting prompt into the history as its run's first message, in one transaction. */
  deliverPrompt(id: number, runId: string): Promise<Message> {
    return this.sql.tx(async (q) => {
      const r = await q.get<QueueRow>(S.byId, [id]);
      if (!r || (await q.run(S.remove, [id])).changes === 0) throw new Error(`queued prompt ${id} is gone`);
      return this.messages.append(r.session_id, { runId, role: "user", text: r.text }, q);
    });
  }

  /** Drops a waiting prompt (its caller cancelled it before it ran); false when already gone. */
  async dropPrompt(id: number): Promise<boolean> {
    return (await this.sql.run(S.remove, [id])).changes > 0;
  }

  /** Drops waiting steering and follow-up messages; returns how many. */
  async clear(sessionId: string): Promise<number> {
    return (await this.sql.run(S.clear, [sessionId])).changes;
  }

  /**
   * Claims the waiting prompts of gone nodes for this one, oldest first (restart recovery, and
   * on PostgreSQL the sweep for lost nodes): one UPDATE that skips rows another node is
   * claiming, so each prompt is run by exactly one node.
   */
  async claimPrompts(live: readonly string[]): Promise<Array<{ id: number; sessionId: string }>> {
    const gone = ownerGone("node", live);
    const rows = await this.sql.all<QueueRow>(
      `UPDATE session_queue SET node = ? WHERE id IN (
         SELECT id FROM session_queue WHERE kind = 'prompt' AND ${gone.sql}${skipLocked(this.sql)}
       ) RETURNING id, session_id, kind, text`,
      [this.node, ...gone.params],
    );
    return rows.map((r) => ({ id: Number(r.id), sessionId: r.session_id })).sort((a, b) => a.id - b.id);
  }
}
