/**
 * PostgreSQL: the run messages of several sessions in one statement. A run stores each message
 * as it comes (its answer, its tool calls and their results) with one statement that also
 * touches its session and says what waits in the session's queue (session-store.ts
 * `appendWatched`). With many sessions running, the messages that come while one such
 * statement is on its way go together (WhileBusy): one `INSERT … SELECT` from their rows as
 * JSON, each at its own session's next seq, each fenced by its own session's lease, each
 * answered with its own session's queue, and a run's first message with the messages others
 * stored in its session since its kept context was read (`appendCatchingUp`). A session's
 * second message in a batch goes in the next statement (seqs are read from the table, which a
 * statement does not see itself write).
 */
import { ClawError } from "../core/errors.js";
import { distinctRounds, WhileBusy } from "../core/while-busy.js";
import type { Sql, SqlValue } from "../store/sql.js";
import { type MessageRow, toMessage } from "./session-rows.js";
import type { Message } from "./session-schemas.js";

/** A message's row values, in `messages` column order (seq left out), and whether it is fenced. */
export interface MessageValues {
  id: string;
  sessionId: string;
  runId: string | null;
  role: string;
  text: string | null;
  callId: string | null;
  name: string | null;
  args: string | null;
  result: string | null;
  isError: number | null;
  item: string | null;
  refusal: number | null;
  createdAt: number;
  /** Written only while this node holds the session's unexpired lease. */
  fenced: boolean;
}

/** What waits in a session's queue for its run (steering, follow-up), as one look saw it. */
export interface QueueWaiting {
  steering: boolean;
  followUp: boolean;
}

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

const COLUMNS = "id, seq, run_id, role, text, call_id, name, args, result, is_error, item, refusal, created_at";

const MANY = `WITH c AS (
    SELECT * FROM json_to_recordset(CAST(? AS json)) AS c(
      id text, session_id text, run_id text, role text, text text, call_id text, name text, args text,
      result text, is_error integer, item text, refusal integer, created_at bigint, fenced boolean, after bigint)
  ), m AS (
    INSERT INTO messages (session_id, ${COLUMNS})
    SELECT c.session_id, c.id, (SELECT COALESCE(MAX(x.seq), 0) + 1 FROM messages x WHERE x.session_id = c.session_id),
           c.run_id, c.role, c.text, c.call_id, c.name, c.args, c.result, c.is_error, c.item, c.refusal, c.created_at
      FROM c
     WHERE NOT c.fenced OR EXISTS (SELECT 1 FROM session_leases l
             WHERE l.session_id = c.session_id AND l.node = ? AND l.expires_at >= c.created_at)
    RETURNING session_id, ${COLUMNS}
  ), touched AS (UPDATE sessions SET updated_at = m.created_at FROM m WHERE sessions.id = m.session_id)
  SELECT m.*,
    CASE WHEN EXISTS (SELECT 1 FROM session_queue q WHERE q.session_id = m.session_id AND q.kind = 'steer') THEN 1 ELSE 0 END AS steering,
    CASE WHEN EXISTS (SELECT 1 FROM session_queue q WHERE q.session_id = m.session_id AND q.kind = 'follow_up') THEN 1 ELSE 0 END AS follow_up,
    1 AS mine
  FROM m
  UNION ALL
  SELECT x.session_id, ${COLUMNS.split(", ")
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
  private readonly batches = new WhileBusy<Append, Watched | Error>((appends) => this.send(appends));

  constructor(
    private readonly sql: Sql,
    private readonly node: string,
    /** Stores one message alone (the statement a batch of one costs anyway). */
    private readonly one: (append: Append) => Promise<Watched>,
  ) {}

  async append(append: Append): Promise<Watched> {
    const out = await this.batches.call(append);
    if (out instanceof Error) throw out;
    return out;
  }

  /**
   * Each message's outcome, its own error included: a batch never fails as a whole once a
   * round of it is written (a second try would find those messages stored).
   */
  private async send(appends: readonly Append[]): Promise<(Watched | Error)[]> {
    const out = new Array<Watched | Error>(appends.length);
    for (const round of distinctRounds(appends, (a) => a.values.sessionId)) {
      if (round.length > 1) {
        try {
          const written = await this.many(round.map((r) => r.item));
          for (let k = 0; k < round.length; k++) out[round[k]!.i] = written[k]!;
          continue;
        } catch (err) {
          if (err instanceof ClawError && err.code === "storage_unavailable") {
            for (const r of round) out[r.i] = err;
            continue;
          }
          // The statement wrote nothing: each goes alone, so what it choked on fails alone.
        }
      }
      for (const r of round) out[r.i] = await this.one(r.item).catch((err: unknown) => asError(err));
    }
    return out;
  }

  /** Messages of distinct sessions in one statement. */
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
        waiting: { steering: Number(row.steering) === 1, followUp: Number(row.follow_up) === 1 },
        ...(after === undefined ? {} : { newer: newer.get(v.sessionId) ?? [] }),
      };
    });
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

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
