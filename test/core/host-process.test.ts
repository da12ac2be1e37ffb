/**
 * A library is a guest in its host's process: createClaw(), some work on it (a real SQLite file,
 * pages of large bus events, a bash run) and close() leave the process as they found it: the
 * same process listeners, no V8 flag turned on (a new context would see `gc` if `--expose-gc`
 * had been set), the same environment, arguments and exit code.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { afterAll, expect, it } from "vitest";
import { createClaw } from "../../src/index.js";
import { tempDir } from "../helpers/claw.js";

const dir = tempDir("tsclaw-host-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a library could change in its host, as plain data to compare. */
function hostState() {
  return {
    listeners: Object.fromEntries(process.eventNames().map((name) => [String(name), process.listenerCount(name)])),
    gcInNewContext: runInNewContext("typeof gc"),
    env: { ...process.env },
    execArgv: [...process.execArgv],
    exitCode: process.exitCode,
    umask: process.umask(),
    cwd: process.cwd(),
  };
}

it("createClaw() + work + close() leaves listeners, V8 flags, env and argv unchanged", async () => {
  const before = hostState();
  const claw = createClaw({ db: join(dir, "claw.db"), project: "host", env: { OPENROUTER_API_KEY: "test-key" } });
  // Enough large payloads read back to have triggered any collection policy (20 × ~0.9 MiB).
  const big = "x".repeat(900 * 1024);
  for (let i = 0; i < 20; i++) await claw.bus.out({ bus: "big", payload: { i, big } });
  let after = 0;
  let seen = 0;
  for (;;) {
    const page = await claw.bus.read({ bus: "big", after, limit: 100 });
    if (page.events.length === 0) break;
    seen += page.events.length;
    after = page.next;
  }
  expect(seen).toBe(20);
  const run = await claw.bash({ script: "echo hi" });
  expect(run.stdout).toBe("hi\n");
  await claw.close();
  // Collections and flag changes were scheduled after a page: let them happen before looking.
  await new Promise<void>((resolve) => setImmediate(resolve));
  expect(hostState()).toEqual(before);
});
