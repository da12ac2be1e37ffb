/**
 * The sandbox bash runs in. `bwrap` (bubblewrap) gives every call its own PID namespace with its
 * own /proc: the script sees the whole filesystem as before (cwd, /tmp, …) but none of the
 * server's processes, so `/proc/$PPID/environ` or `cmdline` cannot leak a key or the token, and
 * when the call ends (or the server dies: --die-with-parent) the kernel kills everything in the
 * namespace, whatever left the process group. The server's secret files (its token file) are
 * replaced by an empty one in the call's view. Without bwrap a script runs as the server's user
 * and reads whatever the server may read. Landlock needs system calls (landlock_create_ruleset,
 * …) that Node cannot make without native code, so it is reported as unavailable.
 */
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import type { SandboxMode } from "../config/claw-options.js";

export { SANDBOX_MODES, type SandboxMode } from "../config/claw-options.js";

/** What applies to a bash call (reported in every result). */
export type AppliedSandbox = "bwrap" | "none";

/** bwrap arguments before the command: the host filesystem as is, a fresh PID namespace and /proc. */
export const BWRAP_ARGS = ["--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--proc", "/proc"] as const;

/**
 * bwrap arguments that replace each secret file with an empty one (`/dev/null`, read-only) in the
 * call's view of the filesystem: a script that `cat`s the server's token file reads nothing. A
 * file that does not exist (yet) is skipped (there is nothing to read, and bwrap could not mount
 * over it); a symlink is hidden at its target, which every path to it reaches.
 */
export function hideArgs(secretFiles: readonly string[]): string[] {
  const args: string[] = [];
  for (const file of secretFiles) {
    let real: string;
    try {
      real = realpathSync(file);
    } catch {
      continue;
    }
    args.push("--ro-bind", "/dev/null", real);
  }
  return args;
}

let probed: { ok: boolean; why: string } | undefined;

/** Whether bwrap works on this host (probed once per process: a real sandboxed `true`). */
export function probeBwrap(): { ok: boolean; why: string } {
  probed ??= (() => {
    if (process.platform !== "linux") return { ok: false, why: "not Linux" };
    const r = spawnSync("bwrap", [...BWRAP_ARGS, "--", "true"], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 10_000,
    });
    if (r.error) return { ok: false, why: `bwrap cannot be started: ${r.error.message}` };
    if (r.status !== 0) {
      const err = r.stderr?.toString().trim().split("\n")[0] ?? "";
      return { ok: false, why: `bwrap does not work here (exit ${r.status ?? r.signal}${err ? `: ${err}` : ""})` };
    }
    return { ok: true, why: "bwrap works" };
  })();
  return probed;
}

/**
 * The sandbox for `mode`: `auto` is bwrap when it works here, else none; `bwrap` fails when it
 * does not work; `landlock` always fails (see above). Throws an Error naming the reason.
 */
export function resolveSandbox(mode: SandboxMode): AppliedSandbox {
  if (mode === "none") return "none";
  if (mode === "landlock")
    throw new Error(
      "--sandbox landlock is not available: Landlock needs system calls Node cannot make without native code; use bwrap (Debian: apt-get install bubblewrap) or none",
    );
  const probe = probeBwrap();
  if (probe.ok) return "bwrap";
  if (mode === "auto") return "none";
  throw new Error(`--sandbox bwrap: ${probe.why} (install bubblewrap, allow user namespaces, or use --sandbox none)`);
}
