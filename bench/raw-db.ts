/** The raw better-sqlite3 baselines: the same pragmas and the same events table as tsclaw's store. */
import Database from "better-sqlite3";

/** Opens a raw database as tsclaw opens its own (WAL, synchronous=NORMAL) with the events table. */
export function openRawDb(path: string): Database.Database {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(`CREATE TABLE IF NOT EXISTS events (
    bus TEXT NOT NULL, seq INTEGER NOT NULL, ts INTEGER NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (bus, seq)) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS events_ts ON events (ts);`);
  return db;
}

/** An inserter of rows (bus "thebus", increasing seq) in transactions of whatever size it is given. */
export function rawInserter(db: Database.Database): (payloads: readonly unknown[]) => void {
  const insert = db.prepare("INSERT INTO events (bus, seq, ts, payload) VALUES (?, ?, ?, ?)");
  let seq = 0;
  return db.transaction((payloads: readonly unknown[]) => {
    const ts = Date.now();
    for (const p of payloads) insert.run("thebus", ++seq, ts, typeof p === "string" ? p : JSON.stringify(p));
  });
}

/** A typical small event payload (~100 bytes of JSON). */
export function samplePayload(i: number): { i: number; kind: string; text: string; ok: boolean } {
  return { i, kind: "bench.sample", text: "the quick brown fox jumps over the lazy dog", ok: i % 2 === 0 };
}
