/**
 * Process-level faults: a bash child that ignores SIGTERM is still killed at its timeout (SIGKILL
 * after the grace), grandchildren included; a second `serve` on the same database fails fast and
 * says why.
 */
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { cliCommand } from "../adapters/cli-run.js";
import { memClaw, tempDir } from "../helpers/claw.js";
import { processAlive, uniqueSleep, waitArgGone } from "../helpers/process.js";
import { type ServeProcess, spawnServe, startServe } from "./serve-process.js";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("bash whose script and child ignore SIGTERM are SIGKILLed after the grace when the timeout hits", async () => {
  const claw = memClaw({ limits: { bashKillGraceMs: 300 } });
  cleanups.push(() => claw.close());
  const arg = uniqueSleep();
  const t0 = Date.now();
  // Both the bash and its sleep (SIG_IGN is inherited across exec) ignore SIGTERM.
  const r = await claw.bash({
    script: `trap '' TERM; sleep ${arg} & wait; echo never`,
    timeout: "500ms",
    exitEvent: { template: { exit: "{payload}" }, bus: "term" },
  });
  const elapsed = Date.now() - t0;
  expect(r.timeout).toBe(true);
  expect(r.stdout).not.toContain("never");
  expect(r.exitCode).toBe(128 + 9); // killed by SIGKILL, not by the ignored SIGTERM
  expect(elapsed).toBeGreaterThanOrEqual(500 + 300 - 50);
  expect(elapsed).toBeLessThan(20_000); // generous: the point is that it did not wait 60 s
  expect(await waitArgGone(arg)).toBe(true);
  const events = await claw.bus.read({ bus: "term" });
  expect(events.events.map((e) => e.payload)).toEqual([{ exit: 137 }]);
});

test("a second serve on the same database fails fast and names the process that holds it", async () => {
  const db = join(tempDir("tsclaw-fault-"), "claw.db");
  const first: ServeProcess = await startServe(db);
  cleanups.push(() => first.stop());
  const t0 = Date.now();
  const second = spawnServe(await cliCommand(), db);
  let stderr = "";
  second.stderr!.on("data", (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => second.on("exit", (c) => resolve(c)));
  expect(code).not.toBe(0);
  expect(Date.now() - t0).toBeLessThan(15_000); // fails at startup, does not hang
  expect(stderr).toContain(`already in use by process ${first.pid}`);
  expect(stderr).toContain(db);
  expect(stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  // The first server is untouched and still serves.
  expect((await first.op("out", { payload: "still here" })).body).toMatchObject({ ok: true, result: { seq: 1 } });
  expect(processAlive(first.pid)).toBe(true);
});
