/**
 * Runs one bash script: its own process group, captured (tail-capped) stdout/stderr, one bus
 * event per output line through compiled templates, exit and timeout events, process-group kill
 * on timeout or caller abort. Returns only after every event of the run is committed.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { statSync } from "node:fs";
import type { BusService } from "../bus/bus-service.js";
import { DEFAULTS } from "../config/defaults.js";
import { ClawError } from "../errors.js";
import type { BashRequest, BashResult } from "./bash-schema.js";
import { buildBashEnv } from "./env.js";
import { planInvocation } from "./invocation.js";
import { LineEventBudget, lineEventSink, type PreparedEvents, Publisher, prepareEvents } from "./line-events.js";
import { TailBuffer } from "./tail-buffer.js";

/** Limits of the bash runner. */
export interface BashRunnerOptions {
  /** Max bash processes at once; more get `too_many_requests`. Default: 32. */
  maxConcurrent?: number;
  /** Bytes of stdout and of stderr kept in the result (the tail). Default: 1 MiB. */
  outputCapBytes?: number;
  /** Milliseconds between SIGTERM and SIGKILL. Default: 1000. */
  killGraceMs?: number;
  /** Environment to inherit. Default: process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Extra variable names to scrub (the configured provider's key). */
  scrubVars?: readonly string[];
  /** Bus used when an event spec names none. Default: "thebus". */
  defaultBus?: string;
  /** Max bytes of one event's JSON (the bus payload limit). Default: 1 MiB. */
  maxPayloadBytes?: number;
  /** Max line events one call publishes; later lines are counted in `eventsDropped`. Default: 100 000. */
  maxEventsPerCall?: number;
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

/** Runs bash scripts under the runner's limits. */
export class BashRunner {
  private active = 0;
  private readonly maxConcurrent: number;
  private readonly outputCap: number;
  private readonly killGraceMs: number;
  private readonly defaultBus: string;
  private readonly maxPayloadBytes: number;
  private readonly maxEventsPerCall: number;

  constructor(
    private readonly bus: BusService,
    private readonly options: BashRunnerOptions = {},
  ) {
    this.maxConcurrent = options.maxConcurrent ?? DEFAULTS.maxBashProcesses;
    this.outputCap = options.outputCapBytes ?? DEFAULTS.bashOutputBytes;
    this.killGraceMs = options.killGraceMs ?? DEFAULTS.bashKillGraceMs;
    this.defaultBus = options.defaultBus ?? DEFAULTS.bus;
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULTS.maxPayloadBytes;
    this.maxEventsPerCall = options.maxEventsPerCall ?? DEFAULTS.maxEventsPerCall;
  }

  /** Number of bash processes running now. */
  get running(): number {
    return this.active;
  }

  /** Runs `req`; `contextEnv` adds variables such as CLAW_SESSION_ID. */
  async run(
    req: BashRequest,
    opts: { signal?: AbortSignal; contextEnv?: Record<string, string | undefined> } = {},
  ): Promise<BashResult> {
    if (opts.signal?.aborted) throw new ClawError("cancelled", "the caller went away before bash started");
    if (this.active >= this.maxConcurrent) {
      throw new ClawError(
        "too_many_requests",
        `${this.active} bash processes are already running (limit ${this.maxConcurrent}); retry when one ends`,
        { limit: this.maxConcurrent },
      );
    }
    if (req.cwd !== undefined) checkCwd(req.cwd);
    const events = prepareEvents(req, this.maxPayloadBytes, this.defaultBus);
    this.active++;
    try {
      return await this.spawnAndWait(req, events, opts);
    } finally {
      this.active--;
    }
  }

  private spawnAndWait(
    req: BashRequest,
    events: PreparedEvents,
    opts: { signal?: AbortSignal; contextEnv?: Record<string, string | undefined> },
  ): Promise<BashResult> {
    const env = buildBashEnv(
      this.options.baseEnv ?? process.env,
      opts.contextEnv ?? {},
      req.env,
      this.options.scrubVars,
    );
    const invocation = planInvocation(req.script, env);
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn("bash", invocation.args, {
        cwd: req.cwd,
        env: invocation.env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (err) {
      invocation.cleanup();
      throw spawnError(err);
    }
    const stdout = new TailBuffer(this.outputCap);
    const stderr = new TailBuffer(this.outputCap);
    const publisher = new Publisher(this.bus);
    const budget = new LineEventBudget(this.maxEventsPerCall);
    const limit = this.maxPayloadBytes;
    const outLines = events.stdoutLine && lineEventSink(events.stdoutLine, limit, budget, publisher);
    const errLines = events.stderrLine && lineEventSink(events.stderrLine, limit, budget, publisher);
    child.stdout.on("data", (c: Buffer) => {
      stdout.push(c);
      outLines?.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr.push(c);
      errLines?.push(c);
    });
    child.stdin.on("error", () => {}); // the script may exit without reading its stdin
    child.stdin.end(req.stdin ?? "");

    return new Promise<BashResult>((resolve, reject) => {
      let timedOut = false;
      let aborted = false;
      let killTimer: NodeJS.Timeout | undefined;
      const killGroup = () => {
        signalGroup(child.pid, "SIGTERM");
        killTimer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), this.killGraceMs);
        killTimer.unref();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, req.timeoutMs);
      const onAbort = () => {
        aborted = true;
        killGroup();
      };
      opts.signal?.addEventListener("abort", onAbort, { once: true });

      child.on("error", (err) => {
        invocation.cleanup();
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        reject(new ClawError("internal", `could not start bash: ${err.message}`));
      });
      // "close" waits for every holder of the pipes (grandchildren included), as Go's Wait does.
      child.on("close", (code, signal) => {
        invocation.cleanup();
        clearTimeout(timer);
        if (killTimer) clearTimeout(killTimer);
        if (timedOut || aborted) signalGroup(child.pid, "SIGKILL"); // stragglers that closed their pipes
        opts.signal?.removeEventListener("abort", onAbort);
        outLines?.end();
        errLines?.end();
        const exitCode = code ?? 128 + (SIGNALS[signal ?? ""] ?? 0);
        if (events.exit) publisher.publish(events.exit.bus, events.exit.template.render(exitCode));
        if (events.timeout) publisher.publish(events.timeout.bus, events.timeout.template.render(timedOut));
        const result: BashResult = {
          stdout: stdout.toString(),
          stderr: stderr.toString(),
          exitCode,
          timeout: timedOut,
        };
        if (stdout.truncated || stderr.truncated) result.truncated = true;
        if (budget.linesCut > 0) result.linesCut = budget.linesCut;
        if (budget.eventsDropped > 0) result.eventsDropped = budget.eventsDropped;
        publisher.settled().then(
          () =>
            aborted
              ? reject(
                  new ClawError("cancelled", "the caller went away; the bash process group was killed", { exitCode }),
                )
              : resolve(result),
          (err) => reject(err),
        );
      });
    });
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

/** What the OS refused at spawn, as the caller's error when it is about the arguments. */
function spawnError(err: unknown): ClawError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "E2BIG")
    return new ClawError(
      "invalid_args",
      "the environment is too large for the OS (E2BIG), even with the script in a file",
      {
        issues: [{ path: "env", message: "too large for execve" }],
      },
    );
  if (code === "ERR_INVALID_ARG_VALUE" || code === "ERR_INVALID_ARG_TYPE")
    return new ClawError("invalid_args", `bash cannot be started with these arguments: ${(err as Error).message}`);
  return new ClawError("internal", `could not start bash: ${(err as Error)?.message ?? String(err)}`);
}

function checkCwd(cwd: string): void {
  let dir = false;
  try {
    dir = statSync(cwd).isDirectory();
  } catch {
    // reported below
  }
  if (!dir)
    throw new ClawError("invalid_args", `cwd ${cwd} is not an existing directory`, {
      issues: [{ path: "cwd", message: "not an existing directory" }],
    });
}
