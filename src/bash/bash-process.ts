/**
 * The processes of one bash call, from spawn to the last kill. The call owns everything it
 * starts: at timeout, on abort, and when the script exits (unless `keepBackground`), every
 * process of the call is sent SIGTERM, then SIGKILL after the grace; the call's process group
 * covers its ordinary children, the marker variable (process-scan.ts) those that left the group
 * or session, and under bwrap the PID namespace everything. Whatever a descendant does with the
 * pipes, the outcome is ready at most DRAIN_MS after the last kill: the pipes are then closed
 * from our side.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { commOf, findMarked, killAllMarked, signalPids } from "./process-scan.js";
import { type AppliedSandbox, BWRAP_ARGS, hideArgs } from "./sandbox.js";

/** How long output may still arrive after the script's processes are gone or killed. */
const DRAIN_MS = 500;
// Between checks that the killed processes are gone: most go within a millisecond or two of
// their signal (under bwrap the kernel is often already emptying the namespace when the check
// starts), so the checks start at 1 ms and back off to 50 ms for those that take their time.
const POLL_FIRST_MS = 1;
const POLL_MAX_MS = 50;

// Under bwrap with keepBackground the namespace must outlive the script: a wrapper runs it,
// reports its exit code on fd 3, and waits while other processes live in the namespace.
const KEEP_WRAPPER =
  'bash "$@" 3>&-; s=$?; echo "$s" >&3; exec 3>&- </dev/null >/dev/null 2>&1; ' +
  'while p=(/proc/[0-9]*); [ "${#p[@]}" -gt 2 ]; do sleep 1; done';

/** What to run and how. */
export interface ProcessSpec {
  /** Arguments after `bash`. */
  args: string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  killGraceMs: number;
  signal?: AbortSignal;
  keepBackground: boolean;
  sandbox: AppliedSandbox;
  /** Files the script must not read (hidden under bwrap; see sandbox.ts). */
  secretFiles: readonly string[];
  /** The exact marker entry every process of this call carries. */
  marker: Buffer;
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
}

/** How the call ended. */
export interface ProcessOutcome {
  exitCode: number;
  timedOut: boolean;
  aborted: boolean;
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/** Spawns the call's bash (in its sandbox) and resolves once the call is over. */
export async function runProcesses(spec: ProcessSpec): Promise<ProcessOutcome> {
  const bwrap = spec.sandbox === "bwrap";
  const keepWrapped = bwrap && spec.keepBackground;
  // --norc: bash sources ~/.bashrc, not interactive as it is, when its stdin is a socket (Node's
  // pipes are socketpairs) and SHLVL is unset (a service's environment). A call must not run the
  // user's interactive set-up: it may print, take hundreds of ms (pyenv, nvm, conda) or hang.
  const script = ["--norc", ...spec.args];
  const bashArgs = keepWrapped ? ["--norc", "-c", KEEP_WRAPPER, "tsclaw-keep", ...script] : script;
  const [command, args] = bwrap
    ? ["bwrap", [...BWRAP_ARGS, ...hideArgs(spec.secretFiles), "--", "bash", ...bashArgs]]
    : ["bash", bashArgs];
  // Throws synchronously for arguments the OS refuses (the caller maps it).
  const child: ChildProcess = spawn(command, args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe", keepWrapped ? "pipe" : "ignore"],
  });
  const pid = child.pid;
  child.stdout!.on("data", spec.onStdout);
  child.stderr!.on("data", spec.onStderr);
  child.stdin!.on("error", () => {}); // the script may exit without reading its stdin
  child.stdin!.end(spec.stdin);

  let exited = false;
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const scriptEnd = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      exited = true;
      resolve(code ?? 128 + (SIGNALS[signal ?? ""] ?? 0));
    });
    if (keepWrapped) {
      let status = "";
      child.stdio[3]!.on("data", (c: Buffer) => {
        status += c.toString();
        if (status.includes("\n")) resolve(Number(status.trim()));
      });
      child.stdio[3]!.on("error", () => {});
    }
  });

  const since = pid ?? 0;
  const marked = () => findMarked(spec.marker, since);
  const left = (): boolean => {
    // Under bwrap the outer process can report the script's exit while the kernel is still
    // tearing the namespace down: its marked processes count as left until they are gone.
    if (bwrap) return !exited || marked().some((p) => commOf(p) !== "bwrap");
    return groupAlive(pid) || marked().length > 0;
  };
  const terminate = () => {
    if (bwrap) {
      // Not the bwrap processes themselves: the outer one dying would SIGKILL the namespace at once.
      signalPids(
        marked().filter((p) => commOf(p) !== "bwrap"),
        "SIGTERM",
      );
    } else {
      signalGroup(pid, "SIGTERM");
      signalPids(marked(), "SIGTERM");
    }
  };
  const killNow = () => {
    if (bwrap && pid !== undefined && !exited) signalPids([pid], "SIGKILL"); // the namespace goes with it
    signalGroup(pid, "SIGKILL");
    killAllMarked(spec.marker, since);
  };
  let killing: Promise<void> | undefined;
  const killAll = (): Promise<void> => {
    killing ??= (async () => {
      terminate();
      const end = Date.now() + spec.killGraceMs;
      for (let wait = POLL_FIRST_MS; Date.now() < end && left(); wait = Math.min(2 * wait, POLL_MAX_MS))
        await sleep(Math.min(wait, end - Date.now()));
      killNow();
    })();
    return killing;
  };

  let timedOut = false;
  let aborted = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void killAll();
  }, spec.timeoutMs);
  const onAbort = () => {
    aborted = true;
    void killAll();
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const exitCode = await scriptEnd;
    clearTimeout(timer);
    if (killing) await killing;
    else if (!spec.keepBackground && left()) await killAll();
    await Promise.race([closed, sleep(DRAIN_MS)]);
    return { exitCode, timedOut, aborted };
  } finally {
    clearTimeout(timer);
    spec.signal?.removeEventListener("abort", onAbort);
    // Whoever still holds the pipes (kept background, or a process that escaped every kill),
    // the call is over: stop reading.
    child.stdout!.destroy();
    child.stderr!.destroy();
    child.stdio[3]?.destroy();
    child.unref();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

function groupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}
