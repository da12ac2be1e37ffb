/** Process checks for tests that prove nothing is left behind. */
import { readdirSync, readFileSync } from "node:fs";

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
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!processAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !processAlive(pid);
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
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pidsWithArg(token).length === 0) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return pidsWithArg(token).length === 0;
}

/** Waits until a live process has `token` in an argument; resolves with its PID (0 after `ms`). */
export async function waitArgPid(token: string, ms = 10_000): Promise<number> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const pids = pidsWithArg(token);
    // The sleep itself, not a bash or bwrap whose script text mentions it.
    const sleeper = pids.find((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("sleep\0"));
    if (sleeper) return sleeper;
    await new Promise((r) => setTimeout(r, 20));
  }
  return 0;
}
