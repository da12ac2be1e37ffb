/**
 * PostgreSQL: the run messages of several sessions in one statement. A run stores each message
 * as it comes (its answer, its tool calls and their results) with one statement that also
 * touches its session and says what waits in the session's queue (session-store.ts
 * `appendWatched`). With many sessions running, the messages that come in one turn of the
 * event loop go together (WhileBusy, overlapping: the next turn's go at once, and the database's
 * write groups send together what comes while a group is on its way): one `INSERT … SELECT` from
 * their rows as JSON, each at its own session's next seq, each fenced by its own session's
 * lease, each answered with its own session's queue, and a run's first message with the messages
 * others stored in its session since its kept context was read (`appendCatchingUp`). A session's
 * second message in a batch goes in the next statement (seqs are read from the table, which a
 * statement does not see itself write), and a message the statement chokes on fails alone
 * (WhileBusy's rounds).
 */
import { ClawError } from "../core/errors.js";
import { WhileBusy } from "../core/while-busy.js";
import type { Sql, SqlValue } from "../store/sql.js";
import {
  MESSAGE_COLUMNS,
  type MessageRow,
  type MessageValues,
  type QueueWaiting,
  queueWaiting,
  toMessage,
  waitingOf,
} from "./session-rows.js";
import type { Message } from "./session-schemas.js";

/** A message as stored, with what waits in its session's queue. */
export interface Watched {
  message: Message;
  waiting: QueueWaiting;
  /** Asked with `after`: the session's messages after that seq stored by others, in seq order. */
  newer?: Message[];
}

/** A message to append, and (a run's first) the seq its kept context was read up to. */
export interface Append {
  values: MessageValues;
  after?: number;
}

const MANY = `WITH c AS (
    SELECT * FROM json_to_recordset(CAST(? AS json)) AS c(
      id text, session_id text, run_id text, role text, text text, call_id text, name text, args text,
      result text, is_error integer, item text, refusal integer, created_at bigint, fenced boolean, after bigint)
  ), m AS (
    INSERT INTO messages (session_id, ${MESSAGE_COLUMNS})
    SELECT c.session_id, c.id, (SELECT COALESCE(MAX(x.seq), 0) + 1 FROM messages x WHERE x.session_id = c.session_id),
           c.run_id, c.role, c.text, c.call_id, c.name, c.args, c.result, c.is_error, c.item, c.refusal, c.created_at
      FROM c
     WHERE NOT c.fenced OR EXISTS (SELECT 1 FROM session_leases l
             WHERE l.session_id = c.session_id AND l.node = ? AND l.expires_at >= c.created_at)
    RETURNING session_id, ${MESSAGE_COLUMNS}
  ), touched AS (UPDATE sessions SET updated_at = m.created_at FROM m WHERE sessions.id = m.session_id)
  SELECT m.*${queueWaiting("m.session_id")}, 1 AS mine
  FROM m
  UNION ALL
  SELECT x.session_id, ${MESSAGE_COLUMNS.split(", ")
    .map((c) => `x.${c}`)
    .join(", ")}, 0, 0, 0 FROM messages x JOIN c ON x.session_id = c.session_id AND x.seq > c.after
  ORDER BY session_id, seq`;

type Row = MessageRow & {
  session_id: string;
  steering: number | string;
  follow_up: number | string;
  mine: number | string;
};

/** The batches of one store's run messages. */
export class WatchedAppends {
  // Overlapping (see the file comment). A session's messages never overlap: its run stores
  // one after the other.
  private readonly batches = new WhileBusy<Append, Watched | ClawError>(
    (appends) => (appends.length === 1 ? this.one(appends[0]!).then((w) => [w]) : this.many(appends)),
    { key: (a) => a.values.sessionId, overlap: true },
  );

  constructor(
    private readonly sql: Sql,
    private readonly node: string,
    /** Stores one message alone (the statement a batch of one costs anyway). */
    private readonly one: (append: Append) => Promise<Watched>,
  ) {}

  async append(append: Append): Promise<Watched> {
    const out = await this.batches.call(append);
    if (out instanceof ClawError) throw out;
    return out;
  }

  /** Messages of distinct sessions in one statement; `lease_lost` for each one its fence refused. */
  private async many(appends: readonly Append[]): Promise<(Watched | ClawError)[]> {
    const rows = await this.sql.all<Row>(MANY, [JSON.stringify(appends.map(record)), this.node]);
    const mine = new Map<string, Row>();
    const newer = new Map<string, Message[]>();
    for (const r of rows) {
      if (Number(r.mine) === 1) mine.set(r.session_id, r);
      else newer.set(r.session_id, [...(newer.get(r.session_id) ?? []), toMessage(r)]);
    }
    return appends.map(({ values: v, after }) => {
      const row = mine.get(v.sessionId);
      if (!row) return leaseLost(this.node, v);
      return {
        message: toMessage(row),
        waiting: waitingOf(row),
        ...(after === undefined ? {} : { newer: newer.get(v.sessionId) ?? [] }),
      };
    });
  }
}

/** A message's JSON record for the statement's `json_to_recordset`. */
function record({ values: v, after }: Append): Record<string, SqlValue | boolean> {
  return {
    id: v.id,
    session_id: v.sessionId,
    run_id: v.runId,
    role: v.role,
    text: v.text,
    call_id: v.callId,
    name: v.name,
    args: v.args,
    result: v.result,
    is_error: v.isError,
    item: v.item,
    refusal: v.refusal,
    created_at: v.createdAt,
    fenced: v.fenced,
    after: after ?? null,
  };
}

/** A fenced message this node could not write: its lease is gone. */
export function leaseLost(node: string, v: Pick<MessageValues, "sessionId" | "runId">): ClawError {
  return new ClawError(
    "lease_lost",
    `node ${node} no longer holds the lease of session ${v.sessionId}: run ${v.runId} stopped, nothing more of it is written`,
    { sessionId: v.sessionId, runId: v.runId, node },
  );
}
