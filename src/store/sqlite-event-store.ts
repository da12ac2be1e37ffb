/**
 * The SQLite implementation of the bus's EventStore: prepared statements, one transaction per
 * batch. An event's rowid is `busId << 40 | seq` (see schema/event-layout.ts), so a bus is one
 * clustered range; pages are planned from the `size` column, so payloads past a page's byte
 * budget are never read; per-bus counts and first seqs live in `buses`, so listing and
 * trimming never count rows. Every call runs through `SqliteSql.exclusive`: synchronously when
 * no asynchronous transaction is open (the common case, so a call costs a resolved promise), and
 * never inside one that is (its statements would become part of someone else's transaction).
 */

import { fitBytes } from "../core/byte-page.js";
import { BUS_CACHE_LIMIT, type BusInfo, type EventStore, type PendingEvent, type StoredEvent } from "./event-store.js";
import { SEQ_BITS } from "./schema/event-layout.js";
import { RowInserter } from "./sqlite-row-inserter.js";
import type { SqliteSql } from "./sqlite-sql.js";
import type { Row } from "./tables/tables.js";

/** The tables as SQLite has them (its events are keyed by rowid, see schema/event-layout.ts). */
type BusRow = Row<"buses", "sqlite">;
type EventRow = Row<"events", "sqlite">;

/**
 * A page row as an array (the statement's raw mode): a third cheaper to read than an object per
 * row. The seq is computed from the rowid; the payload is NULL when it is read on its own.
 */
type PageRow = [seq: number, ts: EventRow["ts"], size: EventRow["size"], payload: EventRow["payload"] | null];

/** Payloads up to this size are read in the page query itself; bigger ones one by one. */
const INLINE_BYTES = 16 * 1024;
const MAX_SEQ = 2 ** SEQ_BITS - 1;
/** Buses read at a time by the age sweep (it never holds every bus's row at once). */
const SWEEP_PAGE = 1000;
const MAX_BUS_ID = 2 ** (63 - SEQ_BITS) - 1;

// Rowid bounds are computed by SQLite in 64-bit integers (a JS number is exact only to 2^53).
// better-sqlite3 binds every JS number as a REAL, and REAL + INTEGER is REAL: `(busId << 40) + ?`
// was rounded past 2^53 (bus ids from 8192 on), so a read after seq 3 skipped seq 4. A seq is
// therefore only ever OR-ed into a rowid (`|` converts to an integer first), never added.
const LO = `(? << ${SEQ_BITS})`;
const HI = `((? + 1) << ${SEQ_BITS})`;
const SEQ = `(id & ${MAX_SEQ})`;

/**
 * `trim_bus beforeTs` (bus id, ts): a range of the (bus, ts) index, so its cost is the events
 * it deletes, not the bus's size. The expression must be the index's own (schema/bus-ts.ts).
 */
export const TRIM_BEFORE_SQL = `DELETE FROM events WHERE (id >> ${SEQ_BITS}) = ? AND ts < ?`;

/** Creates an EventStore over an open database. */
export function createSqliteEventStore(sql: SqliteSql): EventStore {
  const db = sql.db;
  const selectBus = db.prepare<[string], Pick<BusRow, "id" | "last_seq">>(
    "SELECT id, last_seq FROM buses WHERE bus = ?",
  );
  const insertBus = db.prepare<[string], Pick<BusRow, "id">>(
    "INSERT INTO buses (bus, last_seq, first_seq, count) VALUES (?, 0, 1, 0) RETURNING id",
  );
  const updateBus = db.prepare<[number, number, number, number]>(
    "UPDATE buses SET last_seq = ?, first_seq = CASE WHEN count = 0 THEN ? ELSE first_seq END, count = count + ? WHERE id = ?",
  );
  const inserter = new RowInserter(
    db,
    "INSERT INTO events (id, ts, size, payload) VALUES",
    `((? << ${SEQ_BITS}) | ?, ?, ?, ?)`,
  );
  // One pass brings small payloads inline; a payload over INLINE_BYTES comes back NULL (SQLite
  // never reads it) and is fetched on its own only if it fits the page's byte budget.
  const selectPage = db
    .prepare<[number, number, number, number, number], PageRow>(
      `SELECT ${SEQ} AS seq, ts, size, CASE WHEN size <= ? THEN payload END AS payload
         FROM events WHERE id > (${LO} | ?) AND id < ${HI} ORDER BY id LIMIT ?`,
    )
    .raw(true);
  const selectPayload = db.prepare<[number, number], Pick<EventRow, "payload">>(
    `SELECT payload FROM events WHERE id = ${LO} | ?`,
  );
  const selectList = db.prepare<[], Omit<BusRow, "id">>(
    "SELECT bus, last_seq, first_seq, count FROM buses ORDER BY bus",
  );
  const deleteUpTo = db.prepare<[number, number, number]>(`DELETE FROM events WHERE id > ${LO} AND id <= (${LO} | ?)`);
  const deleteBefore = db.prepare<[number, number]>(TRIM_BEFORE_SQL);
  const selectFirst = db.prepare<[number, number], { first: number | null }>(
    `SELECT MIN(id) & ${MAX_SEQ} AS first FROM events WHERE id > ${LO} AND id < ${HI}`,
  );
  const updateCounts = db.prepare<[number, number, number]>(
    "UPDATE buses SET count = max(0, count - ?), first_seq = ? WHERE id = ?",
  );
  // Age retention walks the buses that hold events, in pages of ids, and deletes each one's old
  // range of the (bus, ts) index: a seek per bus plus the events it deletes. One index serving
  // both trims keeps every insert from writing a second one (schema/one-event-index.ts).
  const selectHolding = db
    .prepare<[number, number], [id: BusRow["id"], lastSeq: BusRow["last_seq"]]>(
      "SELECT id, last_seq FROM buses WHERE id > ? AND count > 0 ORDER BY id LIMIT ?",
    )
    .raw(true);

  // Committed id and last seq per bus; the seq is only updated after a transaction commits.
  // Bounded: read-only calls may name any number of buses (that do not exist), which must not
  // pile up here, and evicted entries are simply read again.
  const buses = new Map<string, { id: number; lastSeq: number }>();
  const remember = (bus: string, entry: { id: number; lastSeq: number }) => {
    buses.delete(bus);
    buses.set(bus, entry);
    if (buses.size > BUS_CACHE_LIMIT) buses.delete(buses.keys().next().value!);
  };
  const known = (bus: string): { id: number; lastSeq: number } | undefined => {
    const cached = buses.get(bus);
    if (cached) return cached;
    const row = selectBus.get(bus);
    if (!row) return undefined; // an unknown name costs one indexed lookup, and no memory
    const entry = { id: row.id, lastSeq: row.last_seq };
    remember(bus, entry);
    return entry;
  };
  const lastSeq = (bus: string): number => known(bus)?.lastSeq ?? 0;

  const appendTx = db.transaction((batch: readonly PendingEvent[], next: Map<string, BatchBus>) => {
    const out = new Array<StoredEvent>(batch.length);
    const rows: unknown[] = [];
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      let b = next.get(e.bus);
      if (!b) {
        const entry = known(e.bus);
        const id = entry?.id ?? insertBus.get(e.bus)!.id;
        if (id > MAX_BUS_ID) throw new Error(`more than ${MAX_BUS_ID} buses`);
        b = { id, seq: entry?.lastSeq ?? 0, added: 0 };
        next.set(e.bus, b);
      }
      const seq = ++b.seq;
      if (seq > MAX_SEQ) throw new Error(`bus ${e.bus} passed ${MAX_SEQ} events`);
      b.added++;
      rows.push(b.id, seq, e.ts, e.size, e.payloadJson);
      out[i] = { bus: e.bus, seq, ts: e.ts, payloadJson: e.payloadJson };
    }
    inserter.insert(rows);
    for (const b of next.values()) updateBus.run(b.seq, b.seq - b.added + 1, b.added, b.id);
    return out;
  });

  /** After deleting `deleted` rows of a bus: its count and first seq. */
  const afterDelete = (id: number, last: number, deleted: number) => {
    if (deleted === 0) return;
    updateCounts.run(deleted, selectFirst.get(id, id)?.first ?? last + 1, id);
  };

  const now = {
    append(batch: readonly PendingEvent[]): StoredEvent[] {
      const next = new Map<string, BatchBus>();
      const stored = appendTx(batch, next);
      for (const [bus, b] of next) remember(bus, { id: b.id, lastSeq: b.seq });
      return stored;
    },
    read(bus: string, after: number, limit: number, maxBytes: number, overheadBytes: number): StoredEvent[] {
      const b = known(bus);
      if (!b || after >= b.lastSeq) return [];
      const rows = selectPage.all(INLINE_BYTES, b.id, Math.min(Math.max(0, after), MAX_SEQ), b.id, limit);
      const n = fitBytes(
        rows.map((r) => r[2]),
        maxBytes,
        limit,
        overheadBytes,
      );
      return rows
        .slice(0, n)
        .map((r) => ({ bus, seq: r[0], ts: r[1], payloadJson: r[3] ?? selectPayload.get(b.id, r[0])!.payload }));
    },
    list(): BusInfo[] {
      return selectList.all().map((r) => ({
        bus: r.bus,
        lastSeq: r.last_seq,
        firstSeq: r.count === 0 ? r.last_seq + 1 : r.first_seq,
        count: r.count,
      }));
    },
    trim(bus: string, { keepLast, beforeTs }: { keepLast?: number; beforeTs?: number }): number {
      const b = known(bus);
      if (!b) return 0;
      let deleted = 0;
      db.transaction(() => {
        if (keepLast !== undefined && b.lastSeq - keepLast > 0)
          deleted += deleteUpTo.run(b.id, b.id, b.lastSeq - keepLast).changes;
        if (beforeTs !== undefined) deleted += deleteBefore.run(b.id, beforeTs).changes;
        afterDelete(b.id, b.lastSeq, deleted);
      })();
      return deleted;
    },
    trimAllBefore(ts: number): number {
      let deleted = 0;
      db.transaction(() => {
        for (let after = 0; ; ) {
          const page = selectHolding.all(after, SWEEP_PAGE);
          for (const [id, last] of page) {
            const n = deleteBefore.run(id, ts).changes;
            afterDelete(id, last, n);
            deleted += n;
          }
          if (page.length < SWEEP_PAGE) break;
          after = page[page.length - 1]![0];
        }
      })();
      return deleted;
    },
  };

  return {
    lastSeq: (bus) => sql.exclusive(() => lastSeq(bus)),
    append: (batch) => sql.exclusive(() => now.append(batch)),
    read: (bus, after, limit, maxBytes, overheadBytes) =>
      sql.exclusive(() => now.read(bus, after, limit, maxBytes, overheadBytes)),
    list: () => sql.exclusive(() => now.list()),
    trim: (bus, options) => sql.exclusive(() => now.trim(bus, options)),
    trimAllBefore: (ts) => sql.exclusive(() => now.trimAllBefore(ts)),
    cachedBuses: () => buses.size,
  };
}

/** A bus's state while a batch is appended. */
interface BatchBus {
  id: number;
  seq: number;
  added: number;
}
