/**
 * A PostgreSQL server for these tests (initdb + pg_ctl into a temporary directory, loopback
 * port; as root through runuser as an unprivileged user, since PostgreSQL refuses root), and a
 * fresh database per test file.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, chownSync, constants, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BIN_DIRS = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function ids(user: string): { uid: number; gid: number } | null {
  try {
    const id = (flag: string) => Number(execFileSync("id", [flag, user], { encoding: "utf8", stdio: "pipe" }).trim());
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    return null;
  }
}

/** A running server: `url` names its "postgres" database. */
export interface PgServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts a server (fsync off: test data need not survive a power cut). */
export async function startPgServer(): Promise<PgServer> {
  const bin = BIN_DIRS.find((d) => {
    try {
      accessSync(join(d, "initdb"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (!bin) throw new Error("PostgreSQL is not installed (no initdb): apt-get install postgresql-15");
  const dir = mkdtempSync(join(tmpdir(), "tsclaw-pgstore-"));
  const data = join(dir, "data");
  let argv = (cmd: string, args: string[]) => [join(bin, cmd), ...args];
  if (process.getuid?.() === 0) {
    const user = ids("postgres") ? "postgres" : "nobody";
    const owner = ids(user)!;
    chownSync(dir, owner.uid, owner.gid);
    argv = (cmd, args) => ["/usr/sbin/runuser", "-u", user, "--", join(bin, cmd), ...args];
  }
  const run = (cmd: string, args: string[]) => {
    const [c, ...rest] = argv(cmd, args);
    execFileSync(c!, rest, { stdio: "pipe", cwd: dir });
  };
  run("initdb", ["-D", data, "-A", "trust", "-U", "tsclaw", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off`;
  run("pg_ctl", ["-D", data, "-o", opts, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  return {
    url: `postgres://tsclaw@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Creates a fresh database on the server of `url`; returns its URL. */
export async function createTestDatabase(url: string): Promise<string> {
  const name = `t_${randomBytes(8).toString("hex")}`;
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
