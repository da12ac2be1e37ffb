/**
 * A PostgreSQL server the bench starts itself from Debian's binaries (initdb + pg_ctl into a
 * temporary directory, loopback TCP and a unix socket in that directory). PostgreSQL refuses to
 * run as root, so as root the bench runs both as an unprivileged system user (postgres when it
 * exists, else nobody) through runuser. Settings are PostgreSQL's defaults (synchronous_commit
 * on: every commit is fsynced, stronger than SQLite WAL with synchronous=NORMAL).
 */
import { execFileSync } from "node:child_process";
import { chownSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../measure.js";
import { findBinary, freePort, PeerMissing } from "./peer-process.js";

const BIN_DIRS = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"];

/** A running PostgreSQL. */
export interface RunningPostgres {
  /** postgres://bench@127.0.0.1:<port>/postgres */
  url: string;
  stop(): Promise<void>;
}

function uidOf(user: string): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", user], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** Starts PostgreSQL on a free loopback port; PeerMissing when its binaries are not installed. */
export async function startPostgres(): Promise<RunningPostgres> {
  let binDir = "";
  for (const d of BIN_DIRS) {
    try {
      findBinary("postgres", [join(d, "initdb")]);
      binDir = d;
      break;
    } catch {
      // next version
    }
  }
  if (!binDir) throw new PeerMissing("postgresql (initdb)");
  const tmp = tempDir("tsclaw-bench-pg-");
  const data = join(tmp.dir, "data");
  const port = await freePort();
  let run = (cmd: string, args: string[]) => execFileSync(join(binDir, cmd), args, { stdio: "pipe" });
  if (process.getuid?.() === 0) {
    const user = uidOf("postgres") ? "postgres" : "nobody";
    const ids = uidOf(user);
    if (!ids) throw new PeerMissing("postgresql (no unprivileged user to run it as)");
    chownSync(tmp.dir, ids.uid, ids.gid);
    const runuser = findBinary("runuser", ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]);
    run = (cmd, args) => execFileSync(runuser, ["-u", user, "--", join(binDir, cmd), ...args], { stdio: "pipe" });
  }
  run("initdb", ["-D", data, "-A", "trust", "-U", "bench", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const opts = `-p ${port} -k ${tmp.dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  run("pg_ctl", ["-D", data, "-o", opts, "-l", join(tmp.dir, "log"), "-w", "-t", "60", "start"]);
  return {
    url: `postgres://bench@127.0.0.1:${port}/postgres`,
    stop: async () => {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        tmp.remove();
      }
    },
  };
}
