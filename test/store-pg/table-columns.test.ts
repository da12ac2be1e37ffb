/**
 * Every store table is defined once (src/store/tables/): the tables each engine's migrations
 * build are exactly the definitions, both ways. Every table the database has is defined and
 * every defined table exists; each has exactly its defined columns, in their order, with their
 * type and nullability. A fresh SQLite store and a fresh database on a real PostgreSQL, after
 * all migrations.
 */
import { expect, it } from "vitest";
import { openStore } from "../../src/store/open-storage.js";
import type { SqlDialect } from "../../src/store/sql.js";
import type { ColumnDef, ColumnType, TableDef } from "../../src/store/tables/columns.js";
import { TABLES } from "../../src/store/tables/tables.js";
import { createTestDatabase, dropTestDatabase } from "../helpers/pg-server.js";
import { usePgServer } from "../helpers/use-pg-server.js";

/** A column as compared: [name, type, nullable]. */
type Described = [name: string, type: string, nullable: boolean];

/**
 * The definition as one engine must have it: its tables (those with a column on it), each
 * with the columns it has. `typeOf` turns a logical type into what that engine is compared by.
 */
function defined(dialect: SqlDialect, typeOf: (t: ColumnType) => string): Record<string, Described[]> {
  const out: Record<string, Described[]> = {};
  for (const [table, columns] of Object.entries(TABLES as Record<string, TableDef>)) {
    const here = Object.entries(columns).filter(([, c]: [string, ColumnDef]) => (c.only ?? dialect) === dialect);
    if (here.length > 0) out[table] = here.map(([name, c]): Described => [name, typeOf(c.type), c.nullable]);
  }
  return out;
}

/**
 * SQLite compares by storage family: INTEGER and BIGINT are one (64-bit integers both), so
 * int32 and int64 are too. Declared types outside the schema's vocabulary are kept as they are
 * (and so differ).
 */
const SQLITE_FAMILY: Record<string, string> = { INTEGER: "integer", BIGINT: "integer", TEXT: "text", REAL: "real" };
const SQLITE_OF: Record<ColumnType, string> = {
  int64: "integer",
  int32: "integer",
  text: "text",
  float64: "real",
  tsvector: "tsvector",
};

/** PostgreSQL compares exactly: an epoch-millisecond time in a 32-bit `integer` overflows. */
const PG_OF: Record<ColumnType, string> = {
  int64: "bigint",
  int32: "integer",
  text: "text",
  float64: "double precision",
  tsvector: "tsvector",
};

/** The same tables, then each table's columns (a failure names the table). */
function expectSame(actual: Record<string, Described[]>, expected: Record<string, Described[]>): void {
  expect(Object.keys(actual).sort(), "tables").toEqual(Object.keys(expected).sort());
  for (const [table, columns] of Object.entries(expected))
    expect.soft(actual[table], `table ${table}`).toEqual(columns);
}

const server = usePgServer();

it("SQLite's tables are the definition", async () => {
  const store = openStore(":memory:");
  await store.ready;
  const actual: Record<string, Described[]> = {};
  try {
    // Ordinary tables only: SQLite's own (sqlite_sequence) are not the store's, and FTS5's
    // virtual memory_fts and its shadow tables are an index, not rows a store reads.
    const tables = await store.sql.all<{ name: string }>(
      "SELECT name FROM pragma_table_list() WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    for (const { name } of tables) {
      const cols = await store.sql.all<{ name: string; type: string; notnull: number; pk: number }>(
        'SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid',
        [name],
      );
      // A primary key is never NULL here, whatever the pragma says of a rowid table's.
      actual[name] = cols.map(
        (c): Described => [c.name, SQLITE_FAMILY[c.type] ?? c.type, c.notnull === 0 && c.pk === 0],
      );
    }
  } finally {
    await store.close();
  }
  expectSame(
    actual,
    defined("sqlite", (t) => SQLITE_OF[t]),
  );
});

it("PostgreSQL's tables are the definition", async () => {
  const url = await createTestDatabase(server.url);
  const store = openStore(url);
  await store.ready;
  const actual: Record<string, Described[]> = {};
  try {
    const cols = await store.sql.all<{ table: string; name: string; type: string; nullable: string }>(
      `SELECT c.table_name AS "table", c.column_name AS name, c.data_type AS type, c.is_nullable AS nullable
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        ORDER BY c.table_name, c.ordinal_position`,
    );
    for (const c of cols) {
      const table = actual[c.table] ?? [];
      table.push([c.name, c.type, c.nullable === "YES"]);
      actual[c.table] = table;
    }
  } finally {
    await store.close();
    await dropTestDatabase(url);
  }
  expectSame(
    actual,
    defined("postgres", (t) => PG_OF[t]),
  );
});
