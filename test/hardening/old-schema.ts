/** Databases in the version-1 layout (events inline in a WITHOUT ROWID table), written directly for migration tests. */
import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { MIGRATIONS } from "../../src/store/migrations.js";

/** One raw event row. */
export interface RawEvent {
  bus: string;
  seq: number;
  payload: string;
}

/** Creates `file` at schema version 1 holding `events` (and each bus's last seq, `lastSeqs` overriding). */
export function createV1Database(file: string, events: RawEvent[], lastSeqs: Record<string, number> = {}): void {
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.exec(MIGRATIONS[0]!);
    db.pragma("user_version = 1");
    const insert = db.prepare("INSERT INTO events (bus, seq, ts, payload) VALUES (?, ?, ?, ?)");
    const bus = db.prepare(
      "INSERT INTO buses (bus, last_seq) VALUES (?, ?) ON CONFLICT (bus) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)",
    );
    db.transaction(() => {
      for (const e of events) {
        insert.run(e.bus, e.seq, 1_700_000_000_000 + e.seq, e.payload);
        bus.run(e.bus, lastSeqs[e.bus] ?? e.seq);
      }
      for (const [name, last] of Object.entries(lastSeqs)) bus.run(name, last);
    })();
  } finally {
    db.close();
  }
}

/** Bytes this process has read through read(2)/pread(2), page-cache hits included. */
export function bytesRead(): number {
  const m = /rchar: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"));
  return Number(m![1]);
}
