/**
 * The PostgreSQL server of the bench: the same server the tests start (test/helpers/pg-server.ts:
 * Debian's binaries, initdb + pg_ctl into a temporary directory, loopback TCP, run as an
 * unprivileged user when root), but with PostgreSQL's durability defaults (synchronous_commit
 * on: every commit is fsynced, stronger than SQLite WAL with synchronous=NORMAL).
 */
import { findPgBinDir, PgNotInstalled, startPgServer } from "../../test/helpers/pg-server.js";
import { findBinary, PeerMissing } from "./peer-process.js";

/** A running PostgreSQL. */
export interface RunningPostgres {
  /** postgres://bench@127.0.0.1:<port>/postgres */
  url: string;
  /** The directory holding the data directory (its postmaster.pid names the server's process). */
  dir: string;
  stop(): Promise<void>;
}

/** Starts PostgreSQL on a free loopback port; PeerMissing when its binaries are not installed. */
export async function startPostgres(settings: readonly string[] = []): Promise<RunningPostgres> {
  const binDir = findPgBinDir();
  // findBinary also makes every peer missing under --no-peers.
  findBinary("postgres", binDir ? [`${binDir}/initdb`] : []);
  try {
    return await startPgServer({
      binDir: binDir!,
      role: "bench",
      durable: true,
      maxConnections: 200,
      prefix: "tsclaw-bench-pg-",
      settings,
    });
  } catch (err) {
    if (err instanceof PgNotInstalled) throw new PeerMissing(`postgresql (${err.message})`);
    throw err;
  }
}
