/**
 * Finds the processes a bash call started through the marker variable every one of them
 * inherits (`TSCLAW_BASH=<owner>:<call>`). The marker survives what takes a process out of the
 * call's process group or session (`setsid`, `nohup`, double fork, `disown`), and it stays in
 * `/proc/<pid>/environ` whatever the process later does to its own variables. Only a process
 * exec'd with a cleared environment (`env -i`) loses it; under the bwrap sandbox the PID
 * namespace catches those too.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Name of the variable that marks every process of a bash call. */
export const MARKER_VAR = "TSCLAW_BASH";

/** The marker's bytes as they appear in /proc/<pid>/environ for `value` (an exact entry). */
export function markerEntry(value: string): Buffer {
  return Buffer.from(`${MARKER_VAR}=${value}\0`);
}

/** The bytes every process of `owner` carries, whatever its call. */
export function ownerPrefix(owner: string): Buffer {
  return Buffer.from(`${MARKER_VAR}=${owner}:`);
}

/** The kernel's most recently assigned PID in this namespace (from /proc/loadavg), or undefined. */
function lastPid(): number | undefined {
  try {
    const n = Number(readFileSync("/proc/loadavg", "utf8").trim().split(/\s+/)[4]);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * PIDs whose initial environment contains `needle`. With `since` (the PID of the call's first
 * process), only PIDs assigned after it are read: descendants are always newer, and reading the
 * environment of every process on the machine would cost milliseconds per call.
 */
export function findMarked(needle: Buffer, since?: number): number[] {
  const last = since === undefined ? undefined : lastPid();
  // When PIDs wrapped around since the call began, newer PIDs may be smaller: read them all.
  const bounded = since !== undefined && last !== undefined && last >= since;
  // Few PIDs assigned since: reading those few costs less than listing /proc (~0.3 ms).
  if (bounded && last - since! < PROBE_RANGE) return probeRange(needle, since!, last);
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return []; // no /proc (not Linux): nothing to find this way
  }
  const found: number[] = [];
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(name);
    if (bounded && pid < since!) continue;
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue; // gone, or not ours to read
    }
    if (env.indexOf(needle) >= 0) found.push(pid);
  }
  return found;
}

/** Up to this many PIDs assigned since a call began are read one by one instead of listing /proc. */
const PROBE_RANGE = 16;

/**
 * The processes in [from, to] whose environment contains `needle`. /proc/<n> also answers for a
 * thread's id (unlisted, with its process's environment): only a thread group's leader counts.
 */
function probeRange(needle: Buffer, from: number, to: number): number[] {
  const found: number[] = [];
  for (let pid = from; pid <= to; pid++) {
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // no such process, or not ours to read
    }
    if (env.indexOf(needle) >= 0 && isLeader(pid)) found.push(pid);
  }
  return found;
}

function isLeader(pid: number): boolean {
  try {
    return new RegExp(`^Tgid:\\s*${pid}$`, "m").test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false; // gone meanwhile
  }
}

/** Sends `signal` to each PID; ignores those already gone. */
export function signalPids(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** The command name of `pid` ("bwrap", "bash", …), or undefined when it is gone. */
export function commOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * The marker owners (the text between `TSCLAW_BASH=` and the call's `:`) of every process whose
 * owner starts with `prefix`, each with its PIDs: how a node finds the bash of other nodes of
 * its database that ran on this machine.
 */
export function markedOwners(prefix: string): Map<string, number[]> {
  const needle = Buffer.from(`${MARKER_VAR}=${prefix}`);
  const owners = new Map<string, number[]>();
  for (const pid of findMarked(needle)) {
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // ended meanwhile
    }
    const start = env.indexOf(needle) + MARKER_VAR.length + 1;
    const end = env.indexOf(":", start);
    if (end < 0) continue;
    const owner = env.toString("utf8", start, end);
    owners.set(owner, [...(owners.get(owner) ?? []), pid]);
  }
  return owners;
}

/**
 * SIGKILLs every process carrying `needle`, again until none is left (a process may fork while
 * its siblings die). Returns how many were killed.
 */
export function killAllMarked(needle: Buffer, since?: number): number {
  let killed = 0;
  for (let round = 0; round < 20; round++) {
    const pids = findMarked(needle, since);
    if (pids.length === 0) break;
    signalPids(pids, "SIGKILL");
    killed += pids.length;
  }
  return killed;
}
