/**
 * Runs one bash call: the templates checked first, the script in its sandbox (process-owned:
 * see bash-process.ts), captured (tail-capped) stdout/stderr, one bounded bus event per output
 * line, exit and timeout events. Returns only after every event of the call is committed, and
 * frees the call's concurrency slot at the same moment.
 */
import { statSync } from "node:fs";
import type { BusService } from "../bus/bus-service.js";
import { DEFAULTS } from "../config/defaults.js";
import { ClawError } from "../core/errors.js";
import { runProcesses } from "./bash-process.js";
import type { BashRequest, BashResult } from "./bash-schema.js";
import { buildBashEnv } from "./env.js";
import { planInvocation } from "./invocation.js";
import { LineEventBudget, LineEventSink, type PreparedEvents, Publisher, prepareEvents } from "./line-events.js";
import { killAllMarked, MARKER_VAR, markedOwners, markerEntry, ownerPrefix } from "./process-scan.js";
import type { AppliedSandbox } from "./sandbox.js";
import { TailBuffer } from "./tail-buffer.js";

/** Per-call options of {@link BashRunner.run}. */
export interface BashRunOptions {
  /** Ends the call (its processes are killed). Default: none */
  signal?: AbortSignal;
  /** Variables added to the script's environment, such as CLAW_SESSION_ID. Default: none */
  contextEnv?: Record<string, string | undefined>;
  /** Called with each chunk of output as it arrives. Default: none */
  onOutput?: (stream: "stdout" | "stderr", chunk: Buffer) => void;
}

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
  /** The sandbox every call runs in (already resolved). Default: "none". */
  sandbox?: AppliedSandbox;
  /**
   * Files no script may read (the server's token file), read at each call: under bwrap each is
   * an empty file in the call's view; without a sandbox they stay readable. Default: none
   */
  secretFiles?: () => readonly string[];
  /**
   * Who owns the processes (the database's instance id): every process carries it, so a later
   * start on the same database can kill what a dead server left; a function is read on first
   * use. Default: a random id.
   */
  owner?: string | (() => string);
}

/** Runs bash scripts under the runner's limits. */
export class BashRunner {
  private active = 0;
  private calls = 0;
  private keptBackground = false;
  private readonly maxConcurrent: number;
  private readonly outputCap: number;
  private readonly killGraceMs: number;
  private readonly defaultBus: string;
  private readonly maxPayloadBytes: number;
  private readonly maxEventsPerCall: number;
  private ownerId: string | undefined;
  /** The sandbox calls run in. */
  readonly sandbox: AppliedSandbox;

  constructor(
    private readonly bus: BusService,
    private readonly options: BashRunnerOptions = {},
  ) {
    this.maxConcurrent = options.maxConcurrent ?? DEFAULTS.maxBashProcesses;
    this.outputCap = options.outputCapBytes ?? DEFAULTS.bashOutputBytes;
    this.killGraceMs = Math.min(5000, Math.max(0, options.killGraceMs ?? DEFAULTS.bashKillGraceMs));
    this.defaultBus = options.defaultBus ?? DEFAULTS.bus;
    this.maxPayloadBytes = options.maxPayloadBytes ?? DEFAULTS.maxPayloadBytes;
    this.maxEventsPerCall = options.maxEventsPerCall ?? DEFAULTS.maxEventsPerCall;
    this.sandbox = options.sandbox ?? "none";
  }

  /** The owner mark, read on first use: a claw's instance id is known only once its store has started. */
  private get owner(): string {
    if (this.ownerId === undefined) {
      const o = this.options.owner;
      const id = (typeof o === "function" ? o() : o) ?? `anon-${process.pid}-${Math.random().toString(36).slice(2)}`;
      this.ownerId = id.replace(/[^A-Za-z0-9_.-]/g, "_");
    }
    return this.ownerId;
  }

  /** Number of bash processes running now. */
  get running(): number {
    return this.active;
  }

  /**
   * Kills every process a previous server on the same database left behind (after a kill -9,
   * without bwrap). Call once at startup, after the database lock is held. Returns the count.
   */
  reapLeftovers(): number {
    return killAllMarked(ownerPrefix(this.owner));
  }

  /**
   * Several nodes on one database: kills the bash that nodes of this database which are gone
   * (not in `live`) left running on this machine, where the owner mark is `<group>.<node>`.
   * Returns the count.
   */
  reapGoneNodes(group: string, live: readonly string[]): number {
    const alive = new Set(live.map((node) => `${group}.${node}`.replace(/[^A-Za-z0-9_.-]/g, "_")));
    let killed = 0;
    for (const owner of markedOwners(`${group}.`).keys())
      if (!alive.has(owner)) killed += killAllMarked(ownerPrefix(owner));
    return killed;
  }

  /** Kills what calls with `keepBackground` left running. Called when the claw closes. */
  close(): void {
    if (this.keptBackground) killAllMarked(ownerPrefix(this.owner));
  }

  /**
   * Runs `req`; `contextEnv` adds variables such as CLAW_SESSION_ID; `onOutput` sees every chunk
   * of output as it arrives (the agent shows a running command's output live with it).
   */
  async run(req: BashRequest, opts: BashRunOptions = {}): Promise<BashResult> {
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
      return await this.runCall(req, events, opts);
    } finally {
      this.active--;
    }
  }

  private async runCall(req: BashRequest, events: PreparedEvents, opts: BashRunOptions): Promise<BashResult> {
    const mark = `${this.owner}:${process.pid}.${++this.calls}`;
    const env = buildBashEnv(
      this.options.baseEnv ?? process.env,
      opts.contextEnv ?? {},
      req.env,
      this.options.scrubVars,
    );
    env[MARKER_VAR] = mark; // after the caller's variables: the mark cannot be overridden
    if (req.keepBackground) this.keptBackground = true;
    const stdout = new TailBuffer(this.outputCap);
    const stderr = new TailBuffer(this.outputCap);
    const publisher = new Publisher(this.bus);
    const budget = new LineEventBudget(this.maxEventsPerCall);
    const limit = this.maxPayloadBytes;
    const outLines = events.stdoutLine && new LineEventSink(events.stdoutLine, limit, budget, publisher);
    const errLines = events.stderrLine && new LineEventSink(events.stderrLine, limit, budget, publisher);
    const invocation = planInvocation(req.script, env);
    let outcome: Awaited<ReturnType<typeof runProcesses>>;
    try {
      outcome = await runProcesses({
        args: invocation.args,
        cwd: req.cwd,
        env: invocation.env,
        stdin: req.stdin ?? "",
        timeoutMs: req.timeoutMs,
        killGraceMs: this.killGraceMs,
        signal: opts.signal,
        keepBackground: req.keepBackground ?? false,
        sandbox: this.sandbox,
        secretFiles: this.options.secretFiles?.() ?? [],
        marker: markerEntry(mark),
        onStdout: (c) => {
          stdout.push(c);
          outLines?.push(c);
          opts.onOutput?.("stdout", c);
        },
        onStderr: (c) => {
          stderr.push(c);
          errLines?.push(c);
          opts.onOutput?.("stderr", c);
        },
      });
    } catch (err) {
      throw spawnError(err);
    } finally {
      // Processes still running (keepBackground) hold the file open if they read it: unlinking is safe.
      invocation.cleanup();
    }
    const { exitCode, timedOut, aborted } = outcome;
    outLines?.end();
    errLines?.end();
    if (events.exit) publisher.publish(events.exit.bus, events.exit.template.render(exitCode));
    if (events.timeout) publisher.publish(events.timeout.bus, events.timeout.template.render(timedOut));
    const result: BashResult = {
      stdout: stdout.toString(),
      stderr: stderr.toString(),
      exitCode,
      timeout: timedOut,
      sandbox: this.sandbox,
    };
    if (stdout.truncated || stderr.truncated) result.truncated = true;
    if (budget.linesCut > 0) result.linesCut = budget.linesCut;
    if (budget.eventsDropped > 0) result.eventsDropped = budget.eventsDropped;
    await publisher.settled();
    if (aborted)
      throw new ClawError("cancelled", "the caller went away; every process of the call was killed", { exitCode });
    return result;
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
  if (err instanceof ClawError) return err;
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
