/**
 * The SQLite implementation of the bus's EventStore: prepared statements, one transaction per
 * batch. Pages are planned from the `size` column, so payloads past a page's byte budget are
 * never read; per-bus counts and first seqs live in `buses`, so listing and trimming never
 * count rows.
 */
import type { BusInfo, EventStore, PendingEvent, StoredEvent } from "../bus/event-store.js";
import type { Db } from "./db.js";

interface EventRow {
  seq: number;
  ts: number;
  payload: string;
}

/** Buses whose last seq is kept in memory; older entries are re-read from `buses` when needed. */
const LAST_SEQ_CACHE = 10_000;

/** Creates an EventStore over an open database. */
export function createSqliteEventStore(db: Db): EventStore {
  const selectLast = db.prepare<[string], { last_seq: number }>("SELECT last_seq FROM buses WHERE bus = ?");
  const upsertBus = db.prepare<[string, number, number, number]>(
    `INSERT INTO buses (bus, last_seq, first_seq, count) VALUES (?, ?, ?, ?)
       ON CONFLICT (bus) DO UPDATE SET
         last_seq = excluded.last_seq,
         first_seq = CASE WHEN buses.count = 0 THEN excluded.first_seq ELSE buses.first_seq END,
         count = buses.count + excluded.count`,
  );
  const insert = db.prepare("INSERT INTO events (bus, seq, ts, size, payload) VALUES (?, ?, ?, ?, ?)");
  // The inner scan reads (id, seq, ts, size) only; payloads are joined for the rows within budget.
  const selectPage = db.prepare<[number, string, number, number, number], EventRow>(
    `SELECT p.seq, p.ts, e.payload FROM (
       SELECT id, seq, ts, SUM(size + ?) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) AS run,
              ROW_NUMBER() OVER (ORDER BY seq) AS n
         FROM (SELECT id, seq, ts, size FROM events WHERE bus = ? AND seq > ? ORDER BY seq LIMIT ?)
     ) p JOIN events e ON e.id = p.id
     WHERE p.run <= ? OR p.n = 1 ORDER BY p.seq`,
  );
  const selectList = db.prepare<[], { bus: string; last_seq: number; first_seq: number; count: number }>(
    "SELECT bus, last_seq, first_seq, count FROM buses ORDER BY bus",
  );
  const deleteUpTo = db.prepare<[string, number]>("DELETE FROM events WHERE bus = ? AND seq <= ?");
  const deleteBefore = db.prepare<[string, number]>("DELETE FROM events WHERE bus = ? AND ts < ?");
  const selectFirst = db.prepare<[string], { first: number | null }>(
    "SELECT MIN(seq) AS first FROM events WHERE bus = ?",
  );
  const updateCounts = db.prepare<[number, number, string]>(
    "UPDATE buses SET count = max(0, count - ?), first_seq = ? WHERE bus = ?",
  );
  const selectNonEmpty = db.prepare<[], { bus: string }>("SELECT bus FROM buses WHERE count > 0");

  // Committed last seq per bus; only updated after a transaction commits. Bounded: read-only
  // calls may name any number of buses (that do not exist), which must not pile up here.
  const lastSeqs = new Map<string, number>();
  const remember = (bus: string, seq: number) => {
    lastSeqs.delete(bus);
    lastSeqs.set(bus, seq);
    if (lastSeqs.size > LAST_SEQ_CACHE) lastSeqs.delete(lastSeqs.keys().next().value!);
  };
  const lastSeq = (bus: string): number => {
    const cached = lastSeqs.get(bus);
    if (cached !== undefined) return cached;
    const seq = selectLast.get(bus)?.last_seq ?? 0;
    if (seq > 0) remember(bus, seq); // an unknown name costs one indexed lookup, and no memory
    return seq;
  };

  const appendTx = db.transaction((batch: readonly PendingEvent[], next: Map<string, [number, number]>) => {
    const out = new Array<StoredEvent>(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      const known = next.get(e.bus);
      const seq = (known ? known[0] : lastSeq(e.bus)) + 1;
      if (known) {
        known[0] = seq;
        known[1]++;
      } else next.set(e.bus, [seq, 1]);
      insert.run(e.bus, seq, e.ts, e.size, e.payloadJson);
      out[i] = { bus: e.bus, seq, ts: e.ts, payloadJson: e.payloadJson };
    }
    for (const [bus, [seq, added]] of next) upsertBus.run(bus, seq, seq - added + 1, added);
    return out;
  });

  /** After deleting `deleted` rows of `bus`: its count and first seq. */
  const afterDelete = (bus: string, deleted: number) => {
    if (deleted === 0) return;
    updateCounts.run(deleted, selectFirst.get(bus)?.first ?? lastSeq(bus) + 1, bus);
  };

  return {
    lastSeq,
    append(batch) {
      const next = new Map<string, [number, number]>();
      const stored = appendTx(batch, next);
      for (const [bus, [seq]] of next) remember(bus, seq);
      return stored;
    },
    read(bus, after, limit, maxBytes, overheadBytes) {
      const rows = selectPage.all(overheadBytes, bus, after, limit, maxBytes);
      const out = new Array<StoredEvent>(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        out[i] = { bus, seq: r.seq, ts: r.ts, payloadJson: r.payload };
      }
      return out;
    },
    list(): BusInfo[] {
      return selectList.all().map((r) => ({
        bus: r.bus,
        lastSeq: r.last_seq,
        firstSeq: r.count === 0 ? r.last_seq + 1 : r.first_seq,
        count: r.count,
      }));
    },
    trim(bus, { keepLast, beforeTs }) {
      let deleted = 0;
      db.transaction(() => {
        if (keepLast !== undefined) deleted += deleteUpTo.run(bus, lastSeq(bus) - keepLast).changes;
        if (beforeTs !== undefined) deleted += deleteBefore.run(bus, beforeTs).changes;
        afterDelete(bus, deleted);
      })();
      return deleted;
    },
    trimAllBefore(ts) {
      let deleted = 0;
      db.transaction(() => {
        for (const { bus } of selectNonEmpty.all()) {
          const n = deleteBefore.run(bus, ts).changes;
          afterDelete(bus, n);
          deleted += n;
        }
      })();
      return deleted;
    },
  };
}
