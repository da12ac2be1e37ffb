/** Continuity memory with an FTS5 index kept in sync by triggers. Owned by src/tasks. */
export const memorySchema = /* sql */ `
CREATE TABLE memory (
  rowid       INTEGER PRIMARY KEY,
  id          TEXT NOT NULL UNIQUE,
  text        TEXT NOT NULL,
  project     TEXT NOT NULL,
  session_key TEXT,
  tags        TEXT NOT NULL DEFAULT '[]',
  created_at  INTEGER NOT NULL
);
CREATE INDEX memory_project ON memory (project, created_at);

CREATE VIRTUAL TABLE memory_fts USING fts5(text, tags, content='memory', content_rowid='rowid', tokenize='porter unicode61');
CREATE TRIGGER memory_ai AFTER INSERT ON memory BEGIN
  INSERT INTO memory_fts(rowid, text, tags) VALUES (new.rowid, new.text, new.tags);
END;
CREATE TRIGGER memory_ad AFTER DELETE ON memory BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, text, tags) VALUES ('delete', old.rowid, old.text, old.tags);
END;
`;
