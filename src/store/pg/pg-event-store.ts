/**
 * The PostgreSQL implementation of the bus's EventStore, for several nodes on one database.
 * A batch (one node's group commit) is ONE statement: it upserts each bus's row in `buses`,
 * moving its last_seq on by the batch's count, inserts the events with the seqs that row gives,
 * and notifies the other nodes, all in the statement's own transaction. The bus row's lock
 * orders writers of that bus (only of that bus), so seqs stay contiguous and unique across
 * nodes; a batch touching several buses locks them in name order, so two batches never wait on
 * each other in a circle. Pages are planned from `size` with a running sum in SQL, so payloads
 * past a page's byte budget are never read.
 */
import { randomUUID } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import type { BusInfo, EventStore, PendingEvent, RemoteCommit, StoredEvent } from "../event-store.js";
import { unavailable } from "../pg-sql.js";
import type { Row } from "../tables/tables.js";
import type { OpenedPg } from "./open-pg.js";
import { followPg, NOTIFY_CHANNEL } from "./pg-follow.js";
import { checkout } from "./pool-checkout.js";

/** The tables as PostgreSQL has them (events keyed by (bus, seq)). */
type BusRow = Row<"buses", "postgres">;
type EventRow = Row<"events", "postgres">;

/** One batch of events: bus heads moved on, events inserted, other nodes notified (bench/pg-driver.ts sends it too). */
export const APPEND = /* sql */ `
WITH counts AS (
  SELECT bus, n FROM unnest($1::text[], $2::bigint[]) AS c(bus, n) ORDER BY bus COLLATE "C"
), heads AS (
  INSERT INTO buses AS b (bus, last_seq, first_seq, count)
    SELECT bus, n, 1, n FROM counts
  ON CONFLICT (bus) DO UPDATE SET
    last_seq = b.last_seq + EXCLUDED.count,
    first_seq = CASE WHEN b.count = 0 THEN b.last_seq + 1 ELSE b.first_seq END,
    count = b.count + EXCLUDED.count
  RETURNING b.bus, b.last_seq
), inserted AS (
  INSERT INTO events (bus, seq, ts, size, payload)
    SELECT e.bus, h.last_seq - c.n + e.i, e.ts, e.size, e.payload
      FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::int[], $7::text[]) AS e(bus, i, ts, size, payload)
      JOIN heads h ON h.bus = e.bus
      JOIN counts c ON c.bus = e.bus
)
SELECT h.bus, h.last_seq, pg_notify('${NOTIFY_CHANNEL}', $8 || ' ' || h.last_seq || ' ' || h.bus) AS notified
  FROM heads h`;

// The running sum makes the budget one pass: rows past it are filtered out before their
// payloads are ever fetched (a large payload lives out of line and is read only when returned).
const PAGE = /* sql */ `
SELECT seq, ts, payload FROM (
  SELECT seq, ts, size, payload, SUM(size + $3::int) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) AS run
    FROM events WHERE bus = $1 AND seq > $2 ORDER BY seq LIMIT $4
) page WHERE run <= $5 OR run = size + $3::int ORDER BY seq`;

const HEAD = "SELECT last_seq FROM buses WHERE bus = $1";
const LIST = `SELECT bus, last_seq, first_seq, count FROM buses ORDER BY bus COLLATE "C"`;

/** After deleting events of the buses in `$1`: their counts and first seqs, recounted from what is left. */
const RECOUNT = /* sql */ `
UPDATE buses b SET count = b.count - d.n,
  first_seq = COALESCE((SELECT MIN(seq) FROM events e WHERE e.bus = b.bus), b.last_seq + 1)
  FROM unnest($1::text[], $2::bigint[]) AS d(bus, n) WHERE b.bus = d.bus`;

/** Options of {@link createPgEventStore}. */
export interface PgEventStoreOptions {
  /** How often the heads of watched buses are polled, in ms (lost notifications cost this much latency). Default: 1000 */
  pollMs?: number;
  /** Where reconnect and poll failures are reported. Default: stderr */
  log?: (message: string) => void;
}

/**
 * Creates an EventStore over a PostgreSQL database, open or still opening (calls wait for it,
 * and reject as it does), so a claw can make its bus before the connection is up.
 */
export function createPgEventStore(db: OpenedPg | Promise<OpenedPg>, options: PgEventStoreOptions = {}): EventStore {
  const opened = Promise.resolve(db);
  opened.catch(() => {}); // each call reports it
  const pools = opened.then((d) => d.pool);
  pools.catch(() => {});
  // The statements every append, page and head read sends, prepared on the server by name; the
  // appends go grouped with the database's other writes (statement-groups.ts).
  const named = opened.then((d) => (text: string, values: unknown[]) => d.groups.query(text, values));
  named.catch(() => {});
  // Notifications name their sender, so a node skips its own (it fans those out from memory).
  const node = randomUUID().slice(0, 8);
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));

  return unavailableAsStorage({
    async lastSeq(bus) {
      const row = (await (await named)(HEAD, [bus])).rows[0] as Pick<BusRow, "last_seq"> | undefined;
      return row?.last_seq ?? 0;
    },

    async append(batch) {
      if (batch.length === 0) return [];
      const perBus = new Map<string, number>();
      const index = new Array<number>(batch.length);
      for (let i = 0; i < batch.length; i++) {
        const bus = batch[i]!.bus;
        const n = (perBus.get(bus) ?? 0) + 1;
        perBus.set(bus, n);
        index[i] = n;
      }
      const buses = [...perBus.keys()].sort(); // bus names are ASCII: code-unit order is "C" order
      const query = await named;
      const { rows } = await retried(() =>
        query(APPEND, [
          buses,
          buses.map((b) => perBus.get(b)!),
          batch.map((e) => e.bus),
          index,
          batch.map((e) => e.ts),
          batch.map((e) => e.size),
          batch.map((e) => e.payloadJson),
          node,
        ]),
      );
      const last = new Map<string, number>();
      for (const r of rows as Pick<BusRow, "bus" | "last_seq">[]) last.set(r.bus, r.last_seq);
      return batch.map((e: PendingEvent, i): StoredEvent => {
        const seq = last.get(e.bus)! - perBus.get(e.bus)! + index[i]!;
        return { bus: e.bus, seq, ts: e.ts, payloadJson: e.payloadJson };
      });
    },

    async read(bus, after, limit, maxBytes, overheadBytes) {
      const { rows } = await (await named)(PAGE, [bus, Math.max(0, after), overheadBytes, limit, maxBytes]);
      return (rows as Pick<EventRow, "seq" | "ts" | "payload">[]).map((r) => ({
        bus,
        seq: r.seq,
        ts: r.ts,
        payloadJson: r.payload,
      }));
    },

    async list(): Promise<BusInfo[]> {
      const { rows } = await (await pools).query(LIST);
      return (rows as BusRow[]).map((r) => ({
        bus: r.bus,
        lastSeq: r.last_seq,
        firstSeq: r.count === 0 ? r.last_seq + 1 : r.first_seq,
        count: r.count,
      }));
    },

    async trim(bus, { keepLast, beforeTs }) {
      return inTransaction(await pools, async (c) => {
        // Locking the bus row first orders this against appends to the bus.
        const head = (await c.query("SELECT last_seq FROM buses WHERE bus = $1 FOR UPDATE", [bus])).rows[0] as
          | Pick<BusRow, "last_seq">
          | undefined;
        if (!head) return 0;
        let deleted = 0;
        if (keepLast !== undefined && head.last_seq - keepLast > 0)
          deleted +=
            (await c.query("DELETE FROM events WHERE bus = $1 AND seq <= $2", [bus, head.last_seq - keepLast]))
              .rowCount ?? 0;
        if (beforeTs !== undefined)
          deleted += (await c.query("DELETE FROM events WHERE bus = $1 AND ts < $2", [bus, beforeTs])).rowCount ?? 0;
        if (deleted > 0) await c.query(RECOUNT, [[bus], [deleted]]);
        return deleted;
      });
    },

    async trimAllBefore(ts) {
      return inTransaction(await pools, async (c) => {
        const { rows } = await c.query(
          "WITH d AS (DELETE FROM events WHERE ts < $1 RETURNING bus) SELECT bus, COUNT(*) AS n FROM d GROUP BY bus ORDER BY bus",
          [ts],
        );
        const gone = rows as (Pick<EventRow, "bus"> & { n: number })[];
        if (gone.length === 0) return 0;
        await c.query(RECOUNT, [gone.map((g) => g.bus), gone.map((g) => g.n)]);
        return gone.reduce((sum, g) => sum + g.n, 0);
      });
    },

    follow(onCommit: RemoteCommit, watched: () => Iterable<string>) {
      let stop: (() => void) | undefined;
      let stopped = false;
      opened.then(
        (d) => {
          if (!stopped) stop = followPg(d, { node, onCommit, watched, pollMs: options.pollMs ?? 1000, log });
        },
        () => {}, // the store never opened: nothing to follow
      );
      return () => {
        stopped = true;
        stop?.();
      };
    },
  });
}

/**
 * The store with every failure of a lost, refused or hung database turned into
 * `storage_unavailable` (retryable), as the other statements' executor does: a client of `out`
 * or `read` learns to retry later, never `internal`.
 */
function unavailableAsStorage(store: EventStore): EventStore {
  const mapped = { ...store };
  for (const name of ["lastSeq", "append", "read", "list", "trim", "trimAllBefore"] as const) {
    const fn = store[name] as (...args: unknown[]) => Promise<unknown>;
    (mapped as Record<string, unknown>)[name] = (...args: unknown[]) =>
      fn.apply(store, args).catch((err: unknown) => {
        throw unavailable(err) ?? err;
      });
  }
  return mapped;
}

/** SQLSTATEs after which a statement that was rolled back as a whole may simply run again. */
const RETRYABLE = new Set(["40001", "40P01"]);

async function retried<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5 || !RETRYABLE.has((err as { code?: string }).code ?? "")) throw err;
    }
  }
}

/** Runs `fn` in a transaction on a pooled connection of its own. */
async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  return retried(async () => {
    const out = await checkout(pool);
    const c = out.client;
    let broken: Error | undefined;
    try {
      await c.query("BEGIN");
      const result = await fn(c);
      await c.query("COMMIT");
      return result;
    } catch (err) {
      await c.query("ROLLBACK").catch((e: Error) => {
        broken = e;
      });
      throw err;
    } finally {
      out.release(broken);
    }
  });
}
