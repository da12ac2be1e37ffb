/** Process checks for tests that prove nothing is left behind. */
import { readFileSync } from "node:fs";

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
