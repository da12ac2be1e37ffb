/**
 * A real PostgreSQL server started from the machine's binaries (Debian's postgresql-15:
 * initdb + pg_ctl into a temporary directory), listening on a free loopback port and on a unix
 * socket in that directory, trusted and without a password. The tests, `npm run pg` and the
 * bench all start theirs through this module.
 *
 * PostgreSQL refuses to run as root, so as root the server runs as an unprivileged system user
 * (postgres when it exists, else nobody) through runuser. A watchdog shell outlives nothing: it
 * stops the server and removes its directory when the process that started it dies without
 * calling stop() (a killed test runner must not leave a postgres behind).
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  accessSync,
  chownSync,
  constants,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The PostgreSQL binaries are not installed (or no unprivileged user exists to run them as root). */
export class PgNotInstalled extends Error {
  override name = "PgNotInstalled";
}

/** A running server. */
export interface PgServer {
  /** postgres://<role>@127.0.0.1:<port>/postgres (loopback TCP). */
  url: string;
  /** The same database through the unix socket: postgres://<role>@/postgres?host=<dir>. */
  socketUrl: string;
  port: number;
  /** The directory holding the data directory, the socket and the log. */
  dir: string;
  /** PostgreSQL's major version (15, 16, …). */
  version: number;
  /** Stops the server (fast shutdown) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startPgServer}. */
export interface PgServerOptions {
  /** The superuser role the URL names. Default: "tsclaw" */
  role?: string;
  /**
   * Keep PostgreSQL's durability defaults (fsync, synchronous_commit, full_page_writes on).
   * Default: false, for tests: a test database need not survive a power cut.
   */
  durable?: boolean;
  /** max_connections. Default: 400 (each claw holds a pool of its own) */
  maxConnections?: number;
  /** Prefix of the temporary directory's name. Default: "tsclaw-pg-" */
  prefix?: string;
  /** Directory of initdb, pg_ctl and postgres. Default: {@link findPgBinDir} */
  binDir?: string;
  /** More `name=value` server settings (e.g. a profile's shared_preload_libraries). */
  settings?: readonly string[];
}

/**
 * The newest /usr/lib/postgresql/<major>/bin holding initdb, else the directory initdb on PATH
 * resolves to (/usr/local/bin/initdb links into Debian's); null when none is installed.
 */
export function findPgBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  let majors: string[] = [];
  try {
    majors = readdirSync(root).filter((d) => /^\d+$/.test(d));
  } catch {
    // not a Debian layout
  }
  const candidates = majors.sort((a, b) => Number(b) - Number(a)).map((m) => join(root, m, "bin"));
  for (const dir of (process.env.PATH ?? "").split(":").filter(Boolean)) {
    try {
      candidates.push(dirname(realpathSync(join(dir, "initdb"))));
    } catch {
      // not on this PATH entry
    }
  }
  return candidates.find((dir) => executable(join(dir, "initdb")) && executable(join(dir, "pg_ctl"))) ?? null;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A free TCP port on 127.0.0.1 (the kernel picks it; the server binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** How to run a PostgreSQL binary: directly, or as an unprivileged user when this process is root. */
interface Runner {
  run(bin: string, args: string[]): void;
  /** The command line, for the watchdog's shell. */
  argv(bin: string, args: string[]): string[];
  owner: { uid: number; gid: number } | null;
}

function idsOf(user: string): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8", stdio: "pipe" }).trim());
    const gid = Number(execFileSync("id", ["-g", user], { encoding: "utf8", stdio: "pipe" }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

function runner(binDir: string, cwd: string): Runner {
  let argv = (bin: string, args: string[]) => [join(binDir, bin), ...args];
  let owner: Runner["owner"] = null;
  if (process.getuid?.() === 0) {
    const user = idsOf("postgres") ? "postgres" : "nobody";
    owner = idsOf(user);
    const runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find(executable);
    if (!owner || !runuser)
      throw new PgNotInstalled("running as root, and no runuser or unprivileged user to run PostgreSQL as");
    argv = (bin, args) => [runuser, "-u", user, "--", join(binDir, bin), ...args];
  }
  return {
    owner,
    argv,
    run(bin, args) {
      const [cmd, ...rest] = argv(bin, args);
      execFileSync(cmd!, rest, { stdio: "pipe", cwd });
    },
  };
}

/** Starts a server; throws PgNotInstalled when the binaries are missing. */
export async function startPgServer(options: PgServerOptions = {}): Promise<PgServer> {
  const binDir = options.binDir ?? findPgBinDir();
  if (!binDir) throw new PgNotInstalled("PostgreSQL is not installed (no initdb): apt-get install postgresql-15");
  const role = options.role ?? "tsclaw";
  const dir = mkdtempSync(join(tmpdir(), options.prefix ?? "tsclaw-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "log");
  const remove = () => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  let watchdog: number | undefined;
  try {
    const r = runner(binDir, dir);
    if (r.owner) chownSync(dir, r.owner.uid, r.owner.gid);
    const stopArgs = (mode: string) => ["-D", data, "-m", mode, "-w", "-t", "60", "stop"];
    // From the start: a process killed during initdb leaves no directory behind either.
    watchdog = startWatchdog(r.argv("pg_ctl", stopArgs("immediate")), dir);
    r.run("initdb", ["-D", data, "-A", "trust", "-U", role, "-E", "UTF8", "--locale=C", "--no-sync"]);
    const version = Number(readFileSync(join(data, "PG_VERSION"), "utf8").trim());
    const settings = [
      `max_connections=${options.maxConnections ?? 400}`,
      "listen_addresses=127.0.0.1",
      ...(options.durable ? [] : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]),
      ...(options.settings ?? []),
    ];
    // The port is free when picked but another process may take it before postgres binds it: retry.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const opts = [`-p ${port}`, `-k ${dir}`, ...settings.map((s) => `-c ${s}`)].join(" ");
      try {
        r.run("pg_ctl", ["-D", data, "-o", opts, "-l", log, "-w", "-t", "60", "start"]);
      } catch (err) {
        if (attempt < 3 && /could not bind|already in use/i.test(logTail(log))) continue;
        throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${logTail(log)}`);
      }
      let stopped: Promise<void> | undefined;
      return {
        url: `postgres://${role}@127.0.0.1:${port}/postgres`,
        socketUrl: `postgres://${role}@/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
        port,
        dir,
        version,
        stop() {
          stopped ??= (async () => {
            // The watchdog goes last: if this process is killed while stopping (a second Ctrl-C,
            // npm or tsx giving up on it), the watchdog still stops the server and removes `dir`.
            try {
              r.run("pg_ctl", stopArgs("fast"));
            } finally {
              remove();
              killWatchdog(watchdog);
            }
          })();
          return stopped;
        },
      };
    }
  } catch (err) {
    killWatchdog(watchdog);
    remove();
    throw err;
  }
}

function logTail(log: string): string {
  try {
    return readFileSync(log, "utf8").slice(-1500);
  } catch {
    return "";
  }
}

/** A detached shell that waits for this process to end, then stops the server and removes `dir`. */
function startWatchdog(stopArgv: string[], dir: string): number | undefined {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stopArgv.map(quote).join(" ")} >/dev/null 2>&1; rm -rf ${quote(dir)}`;
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  child.unref();
  return child.pid;
}

function killWatchdog(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL"); // its own process group: the shell and its sleep
  } catch {
    // already gone
  }
}

/** A database name no other test takes. */
function freshName(): string {
  return `t_${randomBytes(8).toString("hex")}`;
}

/** `url` naming database `name` instead of its own. */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Creates an empty database on the server of `url` (any database of it; the connection goes to
 * that one) and returns the URL of the new one. pg is loaded only when this is called.
 */
export async function createTestDatabase(url: string): Promise<string> {
  const name = freshName();
  await adminQuery(url, `CREATE DATABASE ${name}`);
  return withDatabase(url, name);
}

/** Drops the database `url` names, closing any connection still open to it. */
export async function dropTestDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!/^t_[0-9a-f]{16}$/.test(name)) throw new Error(`not a test database: ${name}`);
  await adminQuery(withDatabase(url, "postgres"), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

async function adminQuery(url: string, text: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
