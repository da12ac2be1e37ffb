/** The SQLite implementation of the bus's EventStore: prepared statements, one transaction per batch. */
import type { BusInfo, EventStore, PendingEvent, StoredEvent } from "../bus/event-store.js";
import type { Db } from "./db.js";

interface EventRow {
  bus: string;
  seq: number;
  ts: number;
  payload: string;
}

/** Creates an EventStore over an open database. */
export function createSqliteEventStore(db: Db): EventStore {
  const selectLast = db.prepare<[string], { last_seq: number }>("SELECT last_seq FROM buses WHERE bus = ?");
  const upsertLast = db.prepare(
    "INSERT INTO buses (bus, last_seq) VALUES (?, ?) ON CONFLICT (bus) DO UPDATE SET last_seq = excluded.last_seq",
  );
  const insert = db.prepare("INSERT INTO events (bus, seq, ts, payload) VALUES (?, ?, ?, ?)");
  const selectAfter = db.prepare<[string, number, number], EventRow>(
    "SELECT bus, seq, ts, payload FROM events WHERE bus = ? AND seq > ? ORDER BY seq LIMIT ?",
  );
  const selectList = db.prepare<[], { bus: string; last_seq: number; first_seq: number | null; count: number }>(
    `SELECT b.bus, b.last_seq,
            (SELECT MIN(seq) FROM events e WHERE e.bus = b.bus) AS first_seq,
            (SELECT COUNT(*) FROM events e WHERE e.bus = b.bus) AS count
       FROM buses b ORDER BY b.bus`,
  );
  const deleteUpTo = db.prepare("DELETE FROM events WHERE bus = ? AND seq <= ?");
  const deleteBefore = db.prepare("DELETE FROM events WHERE bus = ? AND ts < ?");
  const deleteAllBefore = db.prepare("DELETE FROM events WHERE ts < ?");

  // Committed last seq per bus; only updated after a transaction commits.
  const lastSeqs = new Map<string, number>();
  const lastSeq = (bus: string): number => {
    let seq = lastSeqs.get(bus);
    if (seq === undefined) {
      seq = selectLast.get(bus)?.last_seq ?? 0;
      lastSeqs.set(bus, seq);
    }
    return seq;
  };

  const appendTx = db.transaction((batch: readonly PendingEvent[], next: Map<string, number>) => {
    const out = new Array<StoredEvent>(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      const seq = (next.get(e.bus) ?? lastSeq(e.bus)) + 1;
      next.set(e.bus, seq);
      insert.run(e.bus, seq, e.ts, e.payloadJson);
      out[i] = { bus: e.bus, seq, ts: e.ts, payloadJson: e.payloadJson };
    }
    for (const [bus, seq] of next) upsertLast.run(bus, seq);
    return out;
  });

  return {
    lastSeq,
    append(batch) {
      const next = new Map<string, number>();
      const stored = appendTx(batch, next);
      for (const [bus, seq] of next) lastSeqs.set(bus, seq);
      return stored;
    },
    read(bus, after, limit) {
      const rows = selectAfter.all(bus, after, limit);
      const out = new Array<StoredEvent>(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        out[i] = { bus: r.bus, seq: r.seq, ts: r.ts, payloadJson: r.payload };
      }
      return out;
    },
    list(): BusInfo[] {
      return selectList.all().map((r) => ({
        bus: r.bus,
        lastSeq: r.last_seq,
        firstSeq: r.first_seq ?? r.last_seq + 1,
        count: r.count,
      }));
    },
    trim(bus, { keepLast, beforeTs }) {
      let deleted = 0;
      db.transaction(() => {
        if (keepLast !== undefined) deleted += deleteUpTo.run(bus, lastSeq(bus) - keepLast).changes;
        if (beforeTs !== undefined) deleted += deleteBefore.run(bus, beforeTs).changes;
      })();
      return deleted;
    },
    trimAllBefore(ts) {
      return deleteAllBefore.run(ts).changes;
    },
  };
}
