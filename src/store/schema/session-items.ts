/**
 * Session schema, second version: output items kept verbatim (reasoning, calls, messages and
 * unknown types are replayed to the model unchanged), fuller usage per run (and per task run in
 * the telemetry), and the durable queue of acknowledged prompts, steering and follow-up messages.
 */
export const sessionItemsSchema = /* sql */ `
-- The output item exactly as the provider sent it (JSON); NULL for rows written before.
ALTER TABLE messages ADD COLUMN item TEXT;
ALTER TABLE messages ADD COLUMN refusal INTEGER;

ALTER TABLE runs ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cost REAL;

-- Acknowledged messages not yet delivered: kind 'prompt' (a run waiting for its turn), 'steer'
-- or 'follow_up'. A row is deleted in the transaction that stores its user message, so each is
-- delivered exactly once, across restarts.
CREATE TABLE session_queue (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL,
  text       TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX session_queue_session ON session_queue (session_id, kind, id);

-- Telemetry of a task's run (op 'task_run'): the tokens and cost the provider reported (JSON).
ALTER TABLE telemetry ADD COLUMN usage TEXT;
`;
