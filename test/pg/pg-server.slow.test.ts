/**
 * The PostgreSQL the tests, `npm run pg` and the bench start: it answers on loopback TCP and on
 * its unix socket, hands out fresh databases, and leaves no process or directory behind, whether
 * it is stopped, its script gets SIGTERM, or the process that started it is killed with -9.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestDatabase, dropTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";
import { processAlive, waitProcessGone } from "../helpers/process.js";
import { WAIT } from "../helpers/wait.js";

const root = new URL("../..", import.meta.url).pathname;

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The postmaster's PID, from the first line of postmaster.pid. */
function postmasterPid(dir: string): number {
  return Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
}

let server: PgServer | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  child = undefined;
});

describe("startPgServer", () => {
  it("answers on loopback TCP and on its unix socket, as a superuser, without fsync", async () => {
    server = await startPgServer();
    expect(server.url).toBe(`postgres://tsclaw@127.0.0.1:${server.port}/postgres`);
    const [tcp] = await query<{ user: string; addr: string; fsync: string; version: string; su: string }>(
      server.url,
      "SELECT current_user AS user, host(inet_server_addr()) AS addr, current_setting('fsync') AS fsync, current_setting('server_version_num') AS version, current_setting('is_superuser') AS su",
    );
    expect(tcp).toEqual({ user: "tsclaw", addr: "127.0.0.1", fsync: "off", version: expect.any(String), su: "on" });
    expect(Math.floor(Number(tcp!.version) / 10_000)).toBe(server.version);
    expect(server.version).toBeGreaterThanOrEqual(15);
    const [unix] = await query<{ addr: string | null }>(server.socketUrl, "SELECT inet_server_addr() AS addr");
    expect(unix).toEqual({ addr: null }); // no TCP address: the unix socket
    expect(existsSync(join(server.dir, `.s.PGSQL.${server.port}`))).toBe(true);
  });

  it("durable keeps PostgreSQL's defaults; stop() ends the postmaster and removes the directory", async () => {
    server = await startPgServer({ durable: true, role: "bench" });
    const [row] = await query<{ fsync: string; sc: string }>(
      server.url,
      "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sc",
    );
    expect(row).toEqual({ fsync: "on", sc: "on" });
    const pid = postmasterPid(server.dir);
    expect(processAlive(pid)).toBe(true);
    const { dir } = server;
    await server.stop();
    await server.stop(); // twice is fine
    server = undefined;
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it("createTestDatabase gives each caller an empty database of its own; dropTestDatabase ends it", async () => {
    server = await startPgServer();
    const [a, b] = await Promise.all([createTestDatabase(server.url), createTestDatabase(server.url)]);
    expect(a).not.toBe(b);
    expect(new URL(a!).host).toBe(`127.0.0.1:${server.port}`);
    await query(a!, "CREATE TABLE only_in_a (x INTEGER)");
    const tables = "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_a'";
    expect(await query(a!, tables)).toEqual([{ n: 1 }]);
    expect(await query(b!, tables)).toEqual([{ n: 0 }]);
    // Dropped even while a connection is still open to it.
    const open = new pg.Client({ connectionString: a });
    await open.connect();
    open.on("error", () => {}); // the drop terminates it
    await dropTestDatabase(a!);
    await expect(query(a!, "SELECT 1")).rejects.toMatchObject({ code: "3D000" });
    await open.end().catch(() => {});
    await expect(dropTestDatabase(server.url)).rejects.toThrow(/not a test database: postgres/);
  });
});

/** Starts scripts/pg.ts (the process itself, not npm) and waits for the URL it prints. */
async function startScript(): Promise<{ url: string; dir: string; output: () => string }> {
  child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "pg.ts")], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  // Until it says it is ready, or exits (then the URL check below shows what it printed).
  await vi.waitFor(
    () => {
      if (child!.exitCode === null) expect(out).toMatch(/Ctrl-C stops it/);
    },
    { timeout: 30_000, interval: 50 },
  );
  const url = /URL: +(postgres:\S+)/.exec(out)?.[1];
  const dir = /data in (\S+), deleted/.exec(out)?.[1];
  if (!url || !dir) throw new Error(`scripts/pg.ts printed no URL: ${out}`);
  return { url, dir, output: () => out };
}

describe("npm run pg", () => {
  it("prints a URL that works and how to serve on it; SIGTERM stops the server and deletes its data", async () => {
    const { url, dir, output } = await startScript();
    expect(output()).toContain(`CLAW_DB=${url} CLAW_TOKEN=`);
    expect(await query(url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    const pid = postmasterPid(dir);
    const exited = new Promise<number | null>((r) => child!.once("exit", (code) => r(code)));
    child!.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it("killed with -9, it still leaves no server and no directory behind", async () => {
    const { dir } = await startScript();
    const pid = postmasterPid(dir);
    child!.kill("SIGKILL");
    expect(await waitProcessGone(pid, 15_000)).toBe(true);
    await vi.waitFor(() => expect(existsSync(dir), `${dir} exists`).toBe(false), { ...WAIT, interval: 50 });
  });

  it("--help prints the usage; any other argument is refused", () => {
    const run = (arg: string) =>
      spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts", "pg.ts"), arg], {
        cwd: root,
        encoding: "utf8",
      });
    const help = run("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run pg/);
    const bad = run("--port");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^usage: npm run pg/);
  });
});
