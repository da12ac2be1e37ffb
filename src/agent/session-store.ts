/** SQLite access for sessions, messages and runs: prepared statements and row mapping only. */
import { randomUUID } from "node:crypto";
import type { Db } from "../store/db.js";
import { itemMessage } from "./output-items.js";
import type { OutputItem } from "./responses-stream.js";
import { SessionQueueStore } from "./session-queue.js";
import type { Message, Session, Usage } from "./session-schemas.js";

interface SessionRow {
  id: string;
  key: string;
  name: string | null;
  bus: string;
  model: string;
  provider: string;
  instructions: string | null;
  stream_text: number;
  created_at: number;
  updated_at: number;
  rowid: number;
}

interface MessageRow {
  id: string;
  seq: number;
  run_id: string | null;
  role: Message["role"];
  text: string | null;
  call_id: string | null;
  name: string | null;
  args: string | null;
  result: string | null;
  is_error: number | null;
  item: string | null;
  refusal: number | null;
  created_at: number;
}

/** A message to append (id, seq and time are assigned; `phase` is read from the item). */
export type NewMessage = Omit<Message, "id" | "seq" | "createdAt" | "phase">;

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

function toSession(r: SessionRow): Session {
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

function toMessage(r: MessageRow): Message {
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

/** Prepared statements over the session tables. */
export class SessionStore {
  /** The durable queue of acknowledged prompts, steering and follow-up messages. */
  readonly queue: SessionQueueStore;
  private readonly s;

  constructor(private readonly db: Db) {
    this.queue = new SessionQueueStore(db, this);
    this.s = {
      byId: db.prepare<[string], SessionRow>("SELECT rowid, * FROM sessions WHERE id = ?"),
      byKey: db.prepare<[string], SessionRow>("SELECT rowid, * FROM sessions WHERE key = ?"),
      insertSession: db.prepare(
        "INSERT INTO sessions (id, key, name, bus, model, provider, instructions, stream_text, created_at, updated_at) VALUES (@id, @key, @name, @bus, @model, @provider, @instructions, @stream_text, @created_at, @updated_at)",
      ),
      list: db.prepare<[number, number], SessionRow>(
        "SELECT rowid, * FROM sessions WHERE rowid < ? ORDER BY rowid DESC LIMIT ?",
      ),
      deleteSession: db.prepare("DELETE FROM sessions WHERE id = ?"),
      nextSeq: db.prepare<[string], { seq: number }>(
        "SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM messages WHERE session_id = ?",
      ),
      insertMessage: db.prepare(
        "INSERT INTO messages (id, session_id, seq, run_id, role, text, call_id, name, args, result, is_error, item, refusal, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      messagesAfter: db.prepare<[string, number, number], MessageRow>(
        "SELECT * FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      ),
      allMessages: db.prepare<[string], MessageRow>("SELECT * FROM messages WHERE session_id = ? ORDER BY seq"),
      byMessageId: db.prepare<[string], MessageRow>("SELECT * FROM messages WHERE id = ?"),
      lastSummarySeq: db.prepare<[string], { seq: number | null }>(
        "SELECT MAX(seq) AS seq FROM messages WHERE session_id = ? AND role = 'summary'",
      ),
      lastAssistant: db.prepare<[string], { text: string }>(
        "SELECT text FROM messages WHERE session_id = ? AND role = 'assistant' AND text IS NOT NULL AND text <> '' ORDER BY seq DESC LIMIT 1",
      ),
      countMessages: db.prepare<[string], { n: number; calls: number }>(
        "SELECT COUNT(*) AS n, COALESCE(SUM(role = 'tool_call'), 0) AS calls FROM messages WHERE session_id = ?",
      ),
      insertRun: db.prepare(
        "INSERT INTO runs (id, session_id, task_id, kind, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)",
      ),
      endRun: db.prepare(
        "UPDATE runs SET status = ?, turns = ?, tool_calls = ?, input_tokens = ?, output_tokens = ?, cached_tokens = ?, reasoning_tokens = ?, cost = ?, error = ?, ended_at = ? WHERE id = ?",
      ),
      runStats: db.prepare<[string], RunTotals>(
        "SELECT COALESCE(SUM(kind = 'agent'), 0) AS runs, COALESCE(SUM(input_tokens), 0) AS input, COALESCE(SUM(output_tokens), 0) AS output, COALESCE(SUM(cached_tokens), 0) AS cachedInput, COALESCE(SUM(reasoning_tokens), 0) AS reasoning, SUM(cost) AS cost FROM runs WHERE session_id = ?",
      ),
      interruptRuns: db.prepare("UPDATE runs SET status = 'error', error = ?, ended_at = ? WHERE status = 'running'"),
    };
  }

  /** The session with this id or key. */
  find(ref: { sessionId?: string; sessionKey?: string; session?: string }): Session | undefined {
    let row: SessionRow | undefined;
    if (ref.sessionId !== undefined) row = this.s.byId.get(ref.sessionId);
    else if (ref.sessionKey !== undefined) row = this.s.byKey.get(ref.sessionKey);
    else if (ref.session !== undefined) row = this.s.byId.get(ref.session) ?? this.s.byKey.get(ref.session);
    return row && toSession(row);
  }

  /** Inserts a session. */
  insert(s: Session): void {
    this.s.insertSession.run({
      id: s.sessionId,
      key: s.sessionKey,
      name: s.name,
      bus: s.bus,
      model: s.model,
      provider: s.provider,
      instructions: s.instructions,
      stream_text: s.streamText ? 1 : 0,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
    });
  }

  /** Updates some columns and `updated_at`; returns the new row. */
  update(sessionId: string, fields: Partial<Pick<Session, "name" | "model" | "provider">>): Session {
    const sets = Object.keys(fields).map((k) => `${k} = @${k}`);
    this.db
      .prepare(`UPDATE sessions SET ${[...sets, "updated_at = @now"].join(", ")} WHERE id = @id`)
      .run({ ...fields, now: Date.now(), id: sessionId });
    return this.find({ sessionId })!;
  }

  /** Sessions newest first, `before` a rowid cursor (exclusive). */
  list(before: number, limit: number): Array<Session & { cursor: number }> {
    return this.s.list.all(before, limit).map((r) => ({ ...toSession(r), cursor: r.rowid }));
  }

  /** Deletes a session with its messages and runs. */
  delete(sessionId: string): boolean {
    return this.s.deleteSession.run(sessionId).changes > 0;
  }

  /** Appends a message at the session's next seq; returns it as stored. */
  append(sessionId: string, m: NewMessage): Message {
    const tx = this.db.transaction((): Message => {
      const seq = this.s.nextSeq.get(sessionId)!.seq;
      const id = `msg_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
      const createdAt = Date.now();
      const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
      this.s.insertMessage.run(
        id,
        sessionId,
        seq,
        m.runId,
        m.role,
        m.text ?? null,
        m.callId ?? null,
        m.name ?? null,
        json(m.args),
        json(m.result),
        m.isError === undefined ? null : m.isError ? 1 : 0,
        json(m.item),
        m.refusal === undefined ? null : m.refusal ? 1 : 0,
        createdAt,
      );
      this.db.prepare("UPDATE sessions SET updated_at = ? WHERE id = ?").run(createdAt, sessionId);
      return toMessage(this.s.byMessageId.get(id)!);
    });
    return tx();
  }

  /** Appends one output item of the model, verbatim, with its readable view. */
  appendItem(sessionId: string, runId: string, item: OutputItem): Message {
    return this.append(sessionId, itemMessage(runId, item));
  }

  /** Messages after seq `after`, at most `limit`. */
  messages(sessionId: string, after = 0, limit = -1): Message[] {
    return this.s.messagesAfter.all(sessionId, after, limit).map(toMessage);
  }

  /** Every message. */
  allMessages(sessionId: string): Message[] {
    return this.s.allMessages.all(sessionId).map(toMessage);
  }

  /** Seq of the newest summary (0 when never compacted). */
  lastSummarySeq(sessionId: string): number {
    return this.s.lastSummarySeq.get(sessionId)?.seq ?? 0;
  }

  /** Newest non-empty assistant text. */
  lastAssistantText(sessionId: string): string | null {
    return this.s.lastAssistant.get(sessionId)?.text ?? null;
  }

  /** Message and tool-call counts. */
  counts(sessionId: string): { messages: number; toolCalls: number } {
    const r = this.s.countMessages.get(sessionId)!;
    return { messages: r.n, toolCalls: r.calls };
  }

  /** Records a run's start. */
  startRun(runId: string, sessionId: string, taskId: string | undefined, kind: "agent" | "compact"): void {
    this.s.insertRun.run(runId, sessionId, taskId ?? null, kind, Date.now());
  }

  /** Records a run's end. */
  endRun(runId: string, end: RunEnd): void {
    this.s.endRun.run(
      end.status,
      end.turns,
      end.toolCalls,
      end.usage.input,
      end.usage.output,
      end.usage.cachedInput,
      end.usage.reasoning,
      end.usage.cost,
      end.error ? JSON.stringify(end.error) : null,
      Date.now(),
      runId,
    );
  }

  /** Agent runs, tokens and cost over every run (compactions' tokens included). */
  runStats(sessionId: string): RunTotals {
    return this.s.runStats.get(sessionId)!;
  }

  /** After a restart: runs left "running" by a dead process end as errors. */
  interruptStaleRuns(): number {
    return this.s.interruptRuns.run(
      JSON.stringify({ code: "interrupted", message: "the process ended during the run" }),
      Date.now(),
    ).changes;
  }

  /** Copies messages up to and including seq `through` into another session. */
  copyMessages(fromId: string, toId: string, through: number): number {
    const rows = this.s.allMessages.all(fromId).filter((r) => r.seq <= through);
    this.db.transaction(() => {
      for (const r of rows) {
        const id = `msg_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
        this.s.insertMessage.run(
          id,
          toId,
          r.seq,
          r.run_id,
          r.role,
          r.text,
          r.call_id,
          r.name,
          r.args,
          r.result,
          r.is_error,
          r.item,
          r.refusal,
          r.created_at,
        );
      }
    })();
    return rows.length;
  }

  /** Runs a function in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}
