/**
 * The single-writer lock is an OS lock the kernel drops with its process: with real serve
 * processes, a second serve is refused (same path, a symlink, a hard link, another PID
 * namespace), a restart right after kill -9 succeeds, and so does one as PID 1 of a fresh PID
 * namespace after the previous PID 1 was killed (a pid file took its own pid for a live owner).
 */
import { linkSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { cliCommand } from "../adapters/cli-run.js";
import { tempDir } from "../helpers/claw.js";
import { processAlive } from "../helpers/process.js";
import { type ServeProcess, spawnServe, startServe } from "./serve-process.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PID_NAMESPACE = ["unshare", "--pid", "--fork"];

/** Runs a second serve on `db` and returns its exit code and stderr (it must fail at startup). */
async function refused(db: string, launcher: string[] = []): Promise<{ code: number | null; stderr: string }> {
  const second = spawnServe([...launcher, ...(await cliCommand())], db);
  let stderr = "";
  second.stderr!.on("data", (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => second.on("exit", (c) => resolve(c)));
  return { code, stderr };
}

function started(s: ServeProcess): ServeProcess {
  cleanups.push(() => s.stop());
  return s;
}

/** The host pid of the process `unshare --fork` started (PID 1 of its namespace). */
function innerPid(unsharePid: number): number {
  const children = readFileSync(`/proc/${unsharePid}/task/${unsharePid}/children`, "utf8").trim();
  return Number(children.split(" ")[0]);
}

test("a second serve is refused on the same file, through a symlink and through a hard link", async () => {
  const dir = tempDir("tsclaw-lock-");
  const db = join(dir, "claw.db");
  const first = started(await startServe(db));
  symlinkSync(db, join(dir, "link.db"));
  linkSync(db, join(dir, "hard.db"));
  for (const path of [db, join(dir, "link.db"), join(dir, "hard.db")]) {
    const { code, stderr } = await refused(path);
    expect(code).not.toBe(0);
    expect(stderr).toContain(`already in use by process ${first.pid}`);
    expect(stderr).not.toMatch(/\n\s+at /);
  }
  expect((await first.op("out", { payload: "still the only writer" })).body).toMatchObject({ ok: true });
});

test("a restart right after kill -9 succeeds and keeps every acknowledged event", async () => {
  const db = join(tempDir("tsclaw-lock-"), "claw.db");
  const first = await startServe(db);
  expect((await first.op("out", { bus: "k", payload: 1 })).body.ok).toBe(true);
  await first.kill9();
  const second = started(await startServe(db)); // no delay: the kernel dropped the lock with the process
  const r = await second.op("read", { bus: "k" });
  expect(r.body.result.events.map((e: { payload: unknown }) => e.payload)).toEqual([1]);
});

test("as PID 1 of a PID namespace: restart after kill -9 works, another namespace is refused", async () => {
  const db = join(tempDir("tsclaw-lock-"), "claw.db");
  const first = await startServe(db, [], {}, { launcher: PID_NAMESPACE });
  const inner = innerPid(first.pid);
  expect(readFileSync(`/proc/${inner}/status`, "utf8")).toMatch(/NSpid:\s+\d+\s+1\n/); // it is PID 1 there
  const other = await refused(db, PID_NAMESPACE); // a second server in another PID namespace
  expect(other.code).not.toBe(0);
  expect(other.stderr).toContain("already in use by process 1");
  process.kill(inner, "SIGKILL");
  await first.exited;
  expect(processAlive(inner)).toBe(false);
  const again = await startServe(db, [], {}, { launcher: PID_NAMESPACE }); // PID 1 again, same database
  const againInner = innerPid(again.pid);
  cleanups.push(async () => {
    process.kill(againInner, "SIGTERM"); // unshare does not forward signals to its child
    await again.exited;
  });
  expect((await again.op("out", { payload: "back" })).body).toMatchObject({ ok: true, result: { seq: 1 } });
});
