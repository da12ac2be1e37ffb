/**
 * CPU time of other processes, from /proc (utime + stime): a child's, or a PostgreSQL server's
 * (its postmaster and the postmaster's children only, not other servers on the machine).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Clock ticks per second of /proc's times (USER_HZ). */
const TICK = 100;

/** The fields of /proc/<pid>/stat after the command name: [0] state, [1] ppid, [11] utime, [12] stime. */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** utime + stime of `pid` in ms (0 once it is gone). */
export function processCpuMs(pid: number): number {
  try {
    const f = statFields(pid);
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICK;
  } catch {
    return 0;
  }
}

/**
 * A reader of the CPU ms spent so far by the PostgreSQL server whose data directory is
 * `dataDir`. A backend that exits (a pool closing an idle connection) keeps the time it was
 * last seen with, so the figure never goes down.
 */
export function pgServerCpu(dataDir: string): () => number {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const ticksOf = new Map<number, number>();
  return () => {
    for (const d of readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const f = statFields(d);
        if (Number(d) !== postmaster && Number(f[1]) !== postmaster) continue;
        ticksOf.set(Number(d), Number(f[11]) + Number(f[12]));
      } catch {
        // gone between the listing and the read
      }
    }
    let ticks = 0;
    for (const t of ticksOf.values()) ticks += t;
    return (ticks * 1000) / TICK;
  };
}
