/**
 * Opens the store a `--db` value names. SQLite (a file or :memory:) opens synchronously and is
 * ready at once; PostgreSQL connects and migrates in the background, its `sql` usable at once
 * (statements wait for the connection) and `ready` settling when it is open or has failed.
 * The `pg` library is loaded only for a PostgreSQL store.
 */

import { displayDb, type StoreKind, storeKind } from "../config/store-url.js";
import type { Db, Durability } from "./db.js";
import { openDb } from "./db.js";
import type { EventStore } from "./event-store.js";
import { openPg } from "./pg/open-pg.js";
import { createPgEventStore } from "./pg/pg-event-store.js";
import { unavailable } from "./pg-sql.js";
import type { Sql } from "./sql.js";
import { createSqliteEventStore } from "./sqlite-event-store.js";
import { SqliteSql } from "./sqlite-sql.js";

/** An open store. */
export interface OpenedStore {
  kind: StoreKind;
  /** The executor every service queries. */
  sql: Sql;
  /** The bus's event storage. */
  events: EventStore;
  /** The SQLite connection (SQLite only: the file guard, the checkpointer and tests use it). */
  db?: Db;
  /** The absolute file, ":memory:", or the URL with its password hidden. */
  path: string;
  /** Settles once the store is open and migrated (at once for SQLite); rejects with why it could not open. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Opens `db` (see the module comment). Throws at once for a SQLite file that cannot be opened or a refused URL. */
export function openStore(db: string, options: { durability?: Durability } = {}): OpenedStore {
  const kind = storeKind(db);
  if (kind === "postgres") return openPostgres(db);
  const opened = openDb(db, options);
  const sql = new SqliteSql(opened.db);
  // A checkpoint runs when no write group or transaction of this connection is open, and never
  // between a group's commit and the answers to its writers.
  opened.gateCheckpoints((checkpoint) => sql.beforeNextWork(checkpoint));
  return {
    kind,
    sql,
    events: createSqliteEventStore(sql),
    db: opened.db,
    path: opened.path,
    ready: Promise.resolve(),
    close: async () => {
      sql.flush(); // the writes of this last turn are committed, not rolled back by the close
      opened.close();
    },
  };
}

/**
 * A PostgreSQL store opened in the background: `sql` and `events` are usable at once and wait
 * for the connection and migrations (`pg` itself is imported by openPg, only now).
 */
function openPostgres(url: string): OpenedStore {
  const opening = openPg(url).catch((err: unknown) => {
    throw unavailable(err) ?? err;
  });
  const ready = opening.then(() => {});
  ready.catch(() => {}); // reported through ready() and every call; never an unhandled rejection
  const sql: Sql = {
    dialect: "postgres",
    all: async (text, params) => (await opening).sql.all(text, params),
    get: async (text, params) => (await opening).sql.get(text, params),
    run: async (text, params) => (await opening).sql.run(text, params),
    tx: async (fn) => (await opening).sql.tx(fn),
  };
  return {
    kind: "postgres",
    sql,
    events: createPgEventStore(opening),
    path: displayDb(url),
    ready,
    close: async () => (await opening.catch(() => undefined))?.close(),
  };
}
