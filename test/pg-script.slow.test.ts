/**
 * `npm run pg` removes its data directory however it is stopped: Ctrl-C (SIGINT to the whole
 * process group: npm, its shell, tsx and the script at once), SIGTERM, or the script killed
 * outright (its watchdog cleans up).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { ROOT } from "./adapters/cli-run.js";
import { findPgBinDir } from "./helpers/pg-server.js";

/** Starts `npm run pg` in a process group of its own; resolves once it printed its data directory. */
async function startPg(): Promise<{ child: ChildProcess; dir: string; out: () => string }> {
  const child = spawn("npm", ["run", "-s", "pg"], { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  const dir = await vi.waitFor(
    () => {
      const m = /data in (\S+), deleted/.exec(out);
      if (!m || !out.includes("Ctrl-C stops it")) throw new Error(`not started yet: ${out}`);
      return m[1]!;
    },
    { timeout: 60_000, interval: 200 },
  );
  expect(existsSync(dir)).toBe(true);
  return { child, dir, out: () => out };
}

describe.skipIf(findPgBinDir() === null)("npm run pg", () => {
  it("deletes its data directory on Ctrl-C, on SIGTERM, and when the script is killed", async () => {
    for (const stop of ["ctrl-c", "sigterm", "kill-9"] as const) {
      const { child, dir, out } = await startPg();
      if (stop === "ctrl-c") process.kill(-child.pid!, "SIGINT");
      else if (stop === "sigterm") process.kill(-child.pid!, "SIGTERM");
      else {
        // The node process running the script (tsx's child), killed without a chance to clean up.
        const { execFileSync } = await import("node:child_process");
        const pids = execFileSync("pgrep", ["-f", "-g", String(child.pid), "scripts/pg.ts"], { encoding: "utf8" })
          .trim()
          .split("\n")
          .map(Number);
        for (const pid of pids) process.kill(pid, "SIGKILL");
      }
      await vi.waitFor(() => expect(existsSync(dir), `${stop}: ${out()}`).toBe(false), {
        timeout: 30_000,
        interval: 200,
      });
      try {
        process.kill(-child.pid!, "SIGKILL"); // whatever of npm's group is left
      } catch {
        // already gone
      }
    }
  }, 240_000);
});
