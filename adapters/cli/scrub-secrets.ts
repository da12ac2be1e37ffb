/**
 * Secrets out of `/proc/<pid>/environ` and `/proc/<pid>/cmdline`. Changing `process.env` does
 * not change those files: the kernel reads them from the process's initial argument and
 * environment blocks. Once the keys and the token are read (into a copy of the environment),
 * their values are overwritten in place through `/proc/self/mem`, so a script running as the
 * same user (bash started by the server included) cannot read them there. Linux only; elsewhere
 * it does nothing and says so.
 */
import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/** What {@link scrubOwnSecrets} did. */
export interface ScrubResult {
  /** Variables whose values were blanked in the initial environment block. */
  env: string[];
  /** Command-line values that were blanked (e.g. "--token"). */
  args: string[];
  /** Why nothing could be done, when that happened. */
  skipped?: string;
}

/** The address ranges of the initial argv and environment blocks of `pid` (fields 48–51 of stat). */
function blocks(pid: number | "self"): { argStart: number; argEnd: number; envStart: number; envEnd: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields[0] is field 3 (state)
  const at = (n: number) => Number(fields[n - 3]);
  return { argStart: at(48), argEnd: at(49), envStart: at(50), envEnd: at(51) };
}

function readMem(fd: number, start: number, end: number): Buffer {
  const buf = Buffer.alloc(end - start);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got);
    if (n <= 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/**
 * Blanks, in `buf` (NUL-separated entries), the value of each entry `NAME=value` whose name
 * `isSecret` accepts; returns the names. The entry keeps its length: the value becomes NULs.
 */
export function blankEnvValues(buf: Buffer, isSecret: (name: string) => boolean): string[] {
  const names: string[] = [];
  let start = 0;
  while (start < buf.length) {
    let end = buf.indexOf(0, start);
    if (end < 0) end = buf.length;
    const eq = buf.indexOf(0x3d, start); // "="
    if (eq > start && eq < end) {
      const name = buf.toString("latin1", start, eq);
      if (isSecret(name) && end > eq + 1) {
        buf.fill(0, eq + 1, end);
        names.push(name);
      }
    }
    start = end + 1;
  }
  return names;
}

/**
 * Blanks, in `buf` (NUL-separated argv), the value after each flag in `flags` (`--token T` and
 * `--token=T`) with asterisks; returns the flags found.
 */
export function blankArgValues(buf: Buffer, flags: readonly string[]): string[] {
  const found: string[] = [];
  const args: { from: number; to: number }[] = [];
  for (let start = 0; start < buf.length; ) {
    let end = buf.indexOf(0, start);
    if (end < 0) end = buf.length;
    args.push({ from: start, to: end });
    start = end + 1;
  }
  for (let i = 0; i < args.length; i++) {
    const { from, to } = args[i]!;
    const arg = buf.toString("latin1", from, to);
    for (const flag of flags) {
      if (arg === flag && args[i + 1]) {
        buf.fill(0x2a, args[i + 1]!.from, args[i + 1]!.to);
        found.push(flag);
      } else if (arg.startsWith(`${flag}=`)) {
        buf.fill(0x2a, from + flag.length + 1, to);
        found.push(flag);
      } else if (arg.includes(" ")) {
        // A process title over argv (npm: "npm start -- --token T"): the words after the flag.
        for (const m of arg.matchAll(new RegExp(`(?:^| )${flag}[ =]([^ ]+)`, "g"))) {
          const at = from + m.index! + m[0].length - m[1]!.length;
          buf.fill(0x2a, at, at + m[1]!.length);
          found.push(flag);
        }
      }
    }
  }
  return found;
}

/** Overwrites secret values in this process's initial environment and argument blocks. */
export function scrubOwnSecrets(isSecret: (name: string) => boolean, secretFlags: readonly string[]): ScrubResult {
  return scrubProcess("self", isSecret, secretFlags);
}

/**
 * True when `pid` is an npm or npx process: npm sets its title to "npm start …" (one string over
 * its argv), else its command line runs npm-cli.js / npx-cli.js.
 */
export function isNpmProcess(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").slice(0, 3);
    return argv.some((a) => /^(\S*\/)?(npm|npx)(-cli\.js)?( |$)/.test(a));
  } catch {
    return false;
  }
}

/**
 * `npm start` (and `npx tsclaw`) leaves npm's own process running as this one's parent, with
 * the keys in its initial environment. When this process was started that way, blank them there
 * too (a process may write another's memory when it may ptrace it: same user, and Yama's
 * ptrace_scope 0; with ptrace_scope 1 a child may not, and `skipped` says so). Returns undefined
 * when the parent is not npm.
 */
export function scrubLauncherSecrets(
  isSecret: (name: string) => boolean,
  secretFlags: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): (ScrubResult & { pid: number }) | undefined {
  if (process.platform !== "linux" || env.npm_lifecycle_event === undefined) return undefined;
  const pid = process.ppid;
  if (!isNpmProcess(pid)) return undefined;
  return { pid, ...scrubProcess(pid, isSecret, secretFlags) };
}

function scrubProcess(
  pid: number | "self",
  isSecret: (name: string) => boolean,
  secretFlags: readonly string[],
): ScrubResult {
  if (process.platform !== "linux") return { env: [], args: [], skipped: "not Linux" };
  let fd: number | undefined;
  try {
    const b = blocks(pid);
    fd = openSync(`/proc/${pid}/mem`, "r+");
    const env = readMem(fd, b.envStart, b.envEnd);
    const envNames = blankEnvValues(env, isSecret);
    if (envNames.length > 0) writeSync(fd, env, 0, env.length, b.envStart);
    const argv = readMem(fd, b.argStart, b.argEnd);
    const argFlags = blankArgValues(argv, secretFlags);
    if (argFlags.length > 0) writeSync(fd, argv, 0, argv.length, b.argStart);
    return { env: envNames, args: argFlags };
  } catch (err) {
    return { env: [], args: [], skipped: (err as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
