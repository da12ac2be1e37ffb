/**
 * Opens the store a `--db` value names. SQLite (a file or :memory:) opens synchronously and is
 * ready at once; PostgreSQL connects and migrates in the background, its `sql` usable at once
 * (statements wait for the connection) and `ready` settling when it is open or has failed.
 * Nothing of PostgreSQL is loaded for a SQLite store.
 */
import type { EventStore } from "../bus/event-store.js";
import type { Db, Durability } from "./db.js";
import { openDb } from "./db.js";
import { unavailable } from "./pg-sql.js";
import type { Sql } from "./sql.js";
import { createSqliteEventStore } from "./sqlite-event-store.js";
import { SqliteSql } from "./sqlite-sql.js";
import { displayDb, type StoreKind, storeKind } from "./store-url.js";

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
  return {
    kind,
    sql,
    events: createSqliteEventStore(sql),
    db: opened.db,
    path: opened.path,
    ready: Promise.resolve(),
    close: async () => opened.close(),
  };
}

/**
 * A PostgreSQL store opened in the background: `sql` and `events` are usable at once and wait
 * for the connection and migrations; once open they call straight through.
 */
function openPostgres(url: string): OpenedStore {
  const opening = import("./pg/open-pg.js").then(async ({ openPg }) => {
    const pg = await openPg(url).catch((err: unknown) => {
      throw unavailable(err) ?? err;
    });
    const { createPgEventStore } = await import("./pg/pg-event-store.js");
    return { pg, events: createPgEventStore(pg) };
  });
  const ready = opening.then(() => {});
  ready.catch(() => {}); // reported through ready() and every call; never an unhandled rejection
  let open: Awaited<typeof opening> | undefined;
  void opening.then(
    (o) => {
      open = o;
    },
    () => {},
  );
  const get = async () => open ?? (await opening);
  const sql: Sql = {
    dialect: "postgres",
    all: async (text, params) => (open ?? (await opening)).pg.sql.all(text, params),
    get: async (text, params) => (open ?? (await opening)).pg.sql.get(text, params),
    run: async (text, params) => (open ?? (await opening)).pg.sql.run(text, params),
    tx: async (fn) => (open ?? (await opening)).pg.sql.tx(fn),
  };
  const events: EventStore = {
    lastSeq: async (bus) => (await get()).events.lastSeq(bus),
    append: async (batch) => (await get()).events.append(batch),
    read: async (...args) => (await get()).events.read(...args),
    list: async () => (await get()).events.list(),
    trim: async (bus, options) => (await get()).events.trim(bus, options),
    trimAllBefore: async (ts) => (await get()).events.trimAllBefore(ts),
    follow(onCommit, watched) {
      let stop: (() => void) | undefined;
      let stopped = false;
      void get().then(
        (o) => {
          if (!stopped) stop = o.events.follow?.(onCommit, watched);
        },
        () => {},
      );
      return () => {
        stopped = true;
        stop?.();
      };
    },
    close: async () => {
      const o = await opening.catch(() => undefined);
      await o?.events.close?.();
    },
  };
  return {
    kind: "postgres",
    sql,
    events,
    path: displayDb(url),
    ready,
    close: async () => {
      const o = await opening.catch(() => undefined);
      if (!o) return;
      await o.events.close?.();
      await o.pg.close();
    },
  };
}
