/**
 * Opens the SQLite database: WAL in exclusive locking mode (no mapped `-shm`), synchronous=NORMAL
 * (or FULL), migrations by user_version, a refusal for databases written by a newer tsclaw, and
 * the one-process lock for files.
 */

import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import type { Durability } from "../config/claw-options.js";
import { ClawError } from "../core/errors.js";
import { type Checkpointer, type CheckpointGate, startCheckpointer } from "./checkpointer.js";
import { acquireDbLock } from "./db-lock.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";

/** A better-sqlite3 connection. */
export type Db = Database.Database;

export type { Durability };

/** An open database with its lock. */
export interface OpenedDb {
  db: Db;
  /** Absolute path, or ":memory:". */
  path: string;
  /** Runs the WAL checkpoints through `gate` (the owner's way to wait for its own transactions). */
  gateCheckpoints(gate: CheckpointGate): void;
  close(): void;
}

/** Opens (creating and migrating) the database at `path`. */
export function openDb(path: string, options: { durability?: Durability } = {}): OpenedDb {
  const memory = path === ":memory:";
  const abs = memory ? path : resolve(path);
  let release = () => {};
  let checkpointer: Checkpointer | undefined;
  if (!memory) {
    mkdirSync(dirname(abs), { recursive: true });
    release = acquireDbLock(abs);
  }
  let db: Db;
  try {
    db = new Database(abs);
    // Exclusive locking mode before the first WAL access keeps the WAL index in heap memory
    // instead of an mmap of `<db>-shm`: with a mapped index, another process truncating that
    // file made the next access fault (SIGBUS kills the process). The cost: no other process
    // (or connection) can open the file while this one has it; the single-writer lock refuses
    // a second tsclaw anyway, so only outside readers (the sqlite3 shell) must wait for a stop.
    if (!memory) db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.durability === "full" ? "FULL" : "NORMAL"}`);
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    migrate(db, abs);
    if (!memory) {
      // A 4 MiB page cache (1 000 pages), not better-sqlite3's 16 MiB default: the hot pages (the
      // tails of the events and tasks B-trees, the indexes the claims use) fit many times over,
      // replay reads each page once, and a miss costs a copy from the OS's page cache. The larger
      // cache only filled up as the file grew and stayed resident: it was 16 MiB of a
      // long-running server's RSS (bench/README.md, the memory rows).
      db.pragma("cache_size = -4000");
      db.pragma("wal_autocheckpoint = 10000"); // a backstop under sustained writes; the timer normally gets there first
      const started = startCheckpointer(db);
      checkpointer = started;
      const release0 = release;
      release = () => {
        started.stop();
        release0();
      };
    }
  } catch (err) {
    release();
    throw err;
  }
  let closed = false;
  return {
    db,
    path: abs,
    gateCheckpoints(gate) {
      checkpointer?.gate(gate);
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        if (db.open) db.close();
      } finally {
        release();
      }
    },
  };
}

function migrate(db: Db, path: string): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    db.close();
    throw new ClawError(
      "schema_too_new",
      `database ${path} has schema version ${current}, newer than this tsclaw understands (${SCHEMA_VERSION}); upgrade tsclaw or use another --db`,
      { schemaVersion: current, supported: SCHEMA_VERSION },
    );
  }
  if (current === SCHEMA_VERSION) return;
  db.transaction(() => {
    for (let v = current; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
}
