/** Process checks for tests that prove nothing is left behind. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { expect, vi } from "vitest";

/** True while `pid` exists and is not a zombie (a reparented child may wait a while to be reaped). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Waits until `pid` is gone; returns false if it still lives after `ms`. */
export async function waitProcessGone(pid: number, ms = 5000): Promise<boolean> {
  return settles(() => expect(processAlive(pid), `process ${pid} alive`).toBe(false), ms);
}

/**
 * Live PIDs (as this process sees them) with an argument containing `token`. Scripts under the
 * bwrap sandbox see their own PID namespace, so a `$!` they print is not a PID out here: tests
 * give each process a unique argument (`sleep 987.654`) and look it up with this.
 */
export function pidsWithArg(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (args.some((a) => a.includes(token)) && processAlive(Number(name))) found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}

/** A unique `sleep` duration argument, so a test can find its own sleeping processes. */
export function uniqueSleep(): string {
  return `${900 + Math.floor(Math.random() * 99)}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

/** Waits until no live process has `token` in its command line; false if some remain after `ms`. */
export async function waitArgGone(token: string, ms = 5000): Promise<boolean> {
  return settles(() => expect(pidsWithArg(token), `processes with ${token}`).toEqual([]), ms);
}

/** Waits until a live process has `token` in an argument; resolves with its PID (0 after `ms`). */
export async function waitArgPid(token: string, ms = 10_000): Promise<number> {
  try {
    return await vi.waitFor(
      () => {
        // The sleep itself, not a bash or bwrap whose script text mentions it.
        const sleeper = pidsWithArg(token).find((p) =>
          readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("sleep\0"),
        );
        expect(sleeper, `a sleep with ${token}`).toBeDefined();
        return sleeper!;
      },
      { timeout: ms, interval: 20 },
    );
  } catch {
    return 0;
  }
}

/** Waits until a script has written a number (a PID) into `path`, and returns it. */
export function pidFromFile(path: string, ms = 10_000): Promise<number> {
  return vi.waitFor(
    () => {
      const text = existsSync(path) ? readFileSync(path, "utf8").trim() : "";
      expect(text, `a pid in ${path}`).toMatch(/^\d+$/);
      return Number(text);
    },
    { timeout: ms, interval: 10 },
  );
}

/** True once `check` stops throwing within `ms` (vi.waitFor), false if it still throws then: callers assert the result. */
async function settles(check: () => void, ms: number): Promise<boolean> {
  try {
    await vi.waitFor(check, { timeout: ms, interval: 25 });
    return true;
  } catch {
    return false;
  }
}
