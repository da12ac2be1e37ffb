/**
 * The raw `pg` baselines of the PostgreSQL rows: a client of its own, int8 read as JS numbers
 * (as tsclaw's pool reads them), and the same events table as tsclaw's PostgreSQL store.
 */
import pg from "pg";
import { numericTypes } from "../src/store/pg/prepared-query.js";

/** A connected raw client. */
export async function rawPgClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, types: numericTypes(pg.types) });
  await client.connect();
  return client;
}

/** Creates tsclaw's events table (same columns, key and index) in the client's database. */
export async function createRawEvents(client: pg.Client): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS events (
    bus TEXT COLLATE "C" NOT NULL, seq BIGINT NOT NULL, ts BIGINT NOT NULL, size INTEGER NOT NULL,
    payload TEXT NOT NULL, PRIMARY KEY (bus, seq));
  CREATE INDEX IF NOT EXISTS events_ts ON events (ts);`);
}

const INSERT = `INSERT INTO events (bus, seq, ts, size, payload)
  SELECT 'thebus', s, $1, z, p FROM unnest($2::bigint[], $3::int[], $4::text[]) AS u(s, z, p)`;

/** An inserter of rows (bus "thebus", increasing seq): one statement, so one transaction, per call. */
export function rawPgInserter(client: pg.Client): (payloads: readonly unknown[]) => Promise<void> {
  let seq = 0;
  return async (payloads) => {
    const seqs: number[] = [];
    const sizes: number[] = [];
    const texts: string[] = [];
    for (const p of payloads) {
      const text = typeof p === "string" ? p : JSON.stringify(p);
      seqs.push(++seq);
      sizes.push(Buffer.byteLength(text));
      texts.push(text);
    }
    await client.query(INSERT, [Date.now(), seqs, sizes, texts]);
  };
}
