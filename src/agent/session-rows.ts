/**
 * The rows of the session tables as the session store reads them, and their mapping to the
 * public shapes (`Session`, `Message`). The row types come from the tables' one definition
 * (src/store/tables/session-tables.ts), so a column renamed there fails to compile here.
 */
import { orderedHex } from "../core/ordered-id.js";
import type { Narrow } from "../store/tables/columns.js";
import type { Row } from "../store/tables/tables.js";
import type { Message, NewMessage, Session, Usage } from "./session-schemas.js";

/** A session row with its list position (`rowid AS pos`: SQLite's rowid, PostgreSQL's column). */
export type SessionRow = Row<"sessions"> & { pos: number };

/** A stored message row as the store reads it (also what a fork copies): all but its session. */
export type MessageRow = Narrow<Omit<Row<"messages">, "session_id">, { role: Message["role"] }>;

/** Run counters saved when a run ends. */
export interface RunEnd {
  status: string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

/** Totals over a session's runs. */
export interface RunTotals {
  runs: number;
  input: number;
  output: number;
  cachedInput: number;
  reasoning: number;
  cost: number | null;
}

/** A session row as the public session. */
export function toSession(r: SessionRow): Session {
  return {
    sessionId: r.id,
    sessionKey: r.key,
    name: r.name,
    bus: r.bus,
    model: r.model,
    provider: r.provider,
    instructions: r.instructions,
    streamText: r.stream_text === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A message row as the public message (NULL columns leave their fields out). */
export function toMessage(r: MessageRow): Message {
  const m: Message = { id: r.id, seq: r.seq, runId: r.run_id, role: r.role, createdAt: r.created_at };
  if (r.text !== null) m.text = r.text;
  if (r.call_id !== null) m.callId = r.call_id;
  if (r.name !== null) m.name = r.name;
  if (r.args !== null) m.args = parseJson(r.args);
  if (r.result !== null) m.result = parseJson(r.result);
  if (r.is_error !== null) m.isError = r.is_error === 1;
  if (r.refusal !== null) m.refusal = r.refusal === 1;
  if (r.item !== null) {
    const item = JSON.parse(r.item) as Record<string, unknown>;
    if (item.phase === "commentary" || item.phase === "final_answer") m.phase = item.phase;
    m.item = item;
  }
  return m;
}

/** A new message id. */
export const newMessageId = () => `msg_${orderedHex()}`;
/** A value as its JSON column (undefined: NULL). */
export const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
/** A boolean as its 0/1 column (undefined: NULL). */
export const flag = (v: boolean | undefined) => (v === undefined ? null : v ? 1 : 0);

/** A stored message's columns, as MessageRow has them. */
export const MESSAGE_COLUMNS =
  "id, seq, run_id, role, text, call_id, name, args, result, is_error, item, refusal, created_at";

/**
 * Two 0/1 columns: whether steering and follow-up messages wait in the queue of the session
 * `sessionRef` names (a parameter, or a column of the statement).
 */
export const queueWaiting = (sessionRef: string) => `,
  CASE WHEN EXISTS (SELECT 1 FROM session_queue WHERE session_id = ${sessionRef} AND kind = 'steer') THEN 1 ELSE 0 END AS steering,
  CASE WHEN EXISTS (SELECT 1 FROM session_queue WHERE session_id = ${sessionRef} AND kind = 'follow_up') THEN 1 ELSE 0 END AS follow_up`;

/** What waits in a session's queue for its run (steering, follow-up), as one look saw it. */
export interface QueueWaiting {
  steering: boolean;
  followUp: boolean;
}

/** What waits in the queue, from queueWaiting's two 0/1 columns (numbers or numeric strings). */
export function waitingOf(row: { steering?: number | string; follow_up?: number | string }): QueueWaiting {
  return { steering: Number(row.steering) === 1, followUp: Number(row.follow_up) === 1 };
}

/** A new message's row values, in `messages` column order (seq left out), and whether it is fenced. */
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

/**
 * A new message's row values. `fenced` (several nodes: PostgreSQL): a run's message is written
 * only while this node still holds the session's lease, in the same statement, so a node paused
 * past its lease cannot write into the turn of a run another node has started since.
 */
export function messageValues(sessionId: string, m: NewMessage, fencing: boolean): MessageValues {
  return {
    id: newMessageId(),
    sessionId,
    runId: m.runId,
    role: m.role,
    text: m.text ?? null,
    callId: m.callId ?? null,
    name: m.name ?? null,
    args: json(m.args),
    result: json(m.result),
    isError: flag(m.isError),
    item: json(m.item),
    refusal: flag(m.refusal),
    createdAt: Date.now(),
    fenced: fencing && typeof m.runId === "string",
  };
}
