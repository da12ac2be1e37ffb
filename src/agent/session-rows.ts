/**
 * The rows of the session tables as the session store reads them, and their mapping to the
 * public shapes (`Session`, `Message`). The row types come from the tables' one definition
 * (src/store/tables/session-tables.ts), so a column renamed there fails to compile here.
 */
import { orderedHex } from "../core/ordered-id.js";
import type { Narrow } from "../store/tables/columns.js";
import type { Row } from "../store/tables/tables.js";
import type { Message, Session, Usage } from "./session-schemas.js";

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
