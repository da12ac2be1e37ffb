/**
 * Runs one bash script: its own process group, captured (tail-capped) stdout/stderr, one bus
 * event per output line through compiled templates, exit and timeout events, process-group kill
 * on timeout or caller abort. Returns only after every event of the run is committed.
 */
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import type { BusService } from "../bus/bus-service.js";
import { DEFAULTS } from "../config/defaults.js";
import { ClawError, toClawError } from "../errors.js";
import { buildBashEnv } from "./env.js";
import { LineSplitter } from "./line-splitter.js";
import { TailBuffer } from "./tail-buffer.js";
import { compileTemplate } from "./template.js";

/** Where and how one kind of bash event is published. */
export interface EventSpec {
  template: unknown;
  bus?: string;
}

/** A bash request after validation (timeout already in milliseconds). */
export interface BashRequest {
  script: string;
  timeoutMs: number;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  stdoutLineEvent?: EventSpec;
  stderrLineEvent?: EventSpec;
  exitEvent?: EventSpec;
  timeoutEvent?: EventSpec;
}

/** The result of a bash run. */
export interface BashResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  timeout: boolean;
  /** Present and true when stdout or stderr was cut to its tail. */
  truncated?: boolean;
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

  constructor(
    private readonly bus: BusService,
    private readonly options: BashRunnerOptions = {},
  ) {
    this.maxConcurrent = options.maxConcurrent ?? DEFAULTS.maxBashProcesses;
    this.outputCap = options.outputCapBytes ?? DEFAULTS.bashOutputBytes;
    this.killGraceMs = options.killGraceMs ?? DEFAULTS.bashKillGraceMs;
    this.defaultBus = options.defaultBus ?? DEFAULTS.bus;
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
    this.active++;
    try {
      return await this.spawnAndWait(req, opts);
    } finally {
      this.active--;
    }
  }

  private spawnAndWait(
    req: BashRequest,
    opts: { signal?: AbortSignal; contextEnv?: Record<string, string | undefined> },
  ): Promise<BashResult> {
    const env = buildBashEnv(
      this.options.baseEnv ?? process.env,
      opts.contextEnv ?? {},
      req.env,
      this.options.scrubVars,
    );
    const child = spawn("bash", ["-c", req.script], {
      cwd: req.cwd,
      env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout = new TailBuffer(this.outputCap);
    const stderr = new TailBuffer(this.outputCap);
    const publisher = new Publisher(this.bus);

    const lineSink = (spec: EventSpec | undefined): LineSplitter | undefined => {
      if (!spec) return undefined;
      const encode = compileTemplate(spec.template);
      const bus = spec.bus ?? this.defaultBus;
      return new LineSplitter((line) => publisher.publish(bus, encode(line)));
    };
    const outLines = lineSink(req.stdoutLineEvent);
    const errLines = lineSink(req.stderrLineEvent);
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
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        reject(new ClawError("internal", `could not start bash: ${err.message}`));
      });
      // "close" waits for every holder of the pipes (grandchildren included), as Go's Wait does.
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        if (killTimer) clearTimeout(killTimer);
        if (timedOut || aborted) signalGroup(child.pid, "SIGKILL"); // stragglers that closed their pipes
        opts.signal?.removeEventListener("abort", onAbort);
        outLines?.end();
        errLines?.end();
        const exitCode = code ?? 128 + (SIGNALS[signal ?? ""] ?? 0);
        if (req.exitEvent)
          publisher.publish(req.exitEvent.bus ?? this.defaultBus, compileTemplate(req.exitEvent.template)(exitCode));
        if (req.timeoutEvent)
          publisher.publish(
            req.timeoutEvent.bus ?? this.defaultBus,
            compileTemplate(req.timeoutEvent.template)(timedOut),
          );
        const result: BashResult = {
          stdout: stdout.toString(),
          stderr: stderr.toString(),
          exitCode,
          timeout: timedOut,
        };
        if (stdout.truncated || stderr.truncated) result.truncated = true;
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

/** Publishes events in order and reports the first failure once all are settled. */
class Publisher {
  private failure: unknown;
  // One callback for every event: a promise per line cost more than the line's insert.
  private readonly onError = (err: unknown) => {
    this.failure ??= err;
  };

  constructor(private readonly bus: BusService) {}

  publish(bus: string, payloadJson: string): void {
    this.bus.enqueueJson(bus, payloadJson, this.onError);
  }

  /** Resolves when every published event is committed; rejects if any failed. */
  async settled(): Promise<void> {
    await this.bus.committed();
    if (this.failure !== undefined) {
      const cause = toClawError(this.failure);
      throw new ClawError(
        cause.code,
        `bash finished but its events could not all be committed: ${cause.message}`,
        cause.details,
      );
    }
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
