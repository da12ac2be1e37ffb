/**
 * Runs the PostgreSQL migrations once, however many nodes start at the same moment: under a
 * session advisory lock, the version is read from `claw_meta` (key 'schema_version') and the
 * missing steps run in one transaction with the new version. A database written by a newer
 * tsclaw is refused with `schema_too_new` and left untouched.
 */
import type { PoolClient } from "pg";
import { ClawError } from "../../core/errors.js";
import type { Row } from "../tables/tables.js";
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from "./pg-schema.js";

/** The advisory lock key migrations hold (any constant; "tsclaw" in ASCII). */
const MIGRATION_LOCK = 0x7473636c6177;

/** Migrates the database `client` is connected to; resolves with its schema version. */
export async function migratePg(client: PoolClient, where: string): Promise<number> {
  await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
  try {
    await client.query("CREATE TABLE IF NOT EXISTS claw_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const row = (await client.query("SELECT value FROM claw_meta WHERE key = 'schema_version'")).rows[0] as
      | Pick<Row<"claw_meta", "postgres">, "value">
      | undefined;
    const current = row ? Number(row.value) : 0;
    if (current > PG_SCHEMA_VERSION) {
      throw new ClawError(
        "schema_too_new",
        `database ${where} has schema version ${current}, newer than this tsclaw understands (${PG_SCHEMA_VERSION}); upgrade tsclaw or use another --db`,
        { schemaVersion: current, supported: PG_SCHEMA_VERSION },
      );
    }
    if (current === PG_SCHEMA_VERSION) return current;
    await client.query("BEGIN");
    try {
      for (const m of PG_MIGRATIONS) if (m.version > current) await client.query(m.sql);
      await client.query(
        `INSERT INTO claw_meta (key, value) VALUES ('schema_version', $1)
           ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
        [String(PG_SCHEMA_VERSION)],
      );
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    }
    return PG_SCHEMA_VERSION;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
  }
}
