/**
 * Progress of long tool calls (prompt, bash, check_task, read with waitMs) for clients that gave
 * a progressToken: one notification per relevant bus event of the call (the session's run
 * events, the task's changes, the lines a bash call publishes) and a heartbeat in between, so
 * a client that resets its timeout on progress never gives up on a healthy long call.
 */
import type { BusEvent } from "../../src/bus/bus-service.js";
import type { Claw } from "../../src/claw/claw.js";

/** One progress report. `progress` grows with every report (milliseconds since the call began). */
export interface ProgressReport {
  progress: number;
  total?: number;
  message: string;
}

/** Where the progress of one call comes from: buses to watch, how to read their events, the expected total. */
interface ProgressPlan {
  buses: string[];
  describe(payload: Record<string, unknown>): string | undefined;
  total?: number;
  verb: string;
}

type Args = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function clip(s: string, n = 200): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** A prompt's run events, on its session's bus (looked up while the call starts; an unknown session reports only heartbeats). */
async function promptPlan(claw: Claw, args: Args): Promise<ProgressPlan> {
  const ref = { sessionId: str(args.sessionId), sessionKey: str(args.sessionKey), session: str(args.session) };
  const state = await claw.do({ op: "get_state", args: ref }, { transport: "mcp" });
  const session = state.ok ? (state.result as { sessionId: string; bus: string }) : undefined;
  if (!session) return { buses: [], verb: "running", describe: () => undefined };
  const sessionId = session.sessionId;
  return {
    buses: [session.bus],
    verb: "running",
    describe: (p) => {
      if (p.sessionId !== sessionId || typeof p.type !== "string" || p.type.startsWith("response.")) return undefined;
      const detail = str(p.name) ?? str(p.text) ?? str(p.status);
      return detail ? `${p.type}: ${clip(detail)}` : p.type;
    },
  };
}

function planFor(claw: Claw, op: string, args: Args): ProgressPlan | Promise<ProgressPlan> | undefined {
  if (op === "read") {
    const waitMs = typeof args.waitMs === "number" ? args.waitMs : 0;
    if (waitMs <= 0) return undefined;
    return { buses: [], describe: () => undefined, total: waitMs, verb: "waiting for an event" };
  }
  if (op === "check_task") {
    const taskId = str(args.taskId) ?? str(args.jobId);
    const waitMs = typeof args.waitMs === "number" ? Math.min(600_000, Math.max(0, args.waitMs)) : 45_000;
    return {
      buses: ["tasks"],
      total: waitMs,
      verb: "waiting for the task",
      describe: (p) => {
        if (p.taskId !== taskId) return undefined;
        const update = (p.latestUpdate as { text?: string } | null | undefined)?.text;
        return `${String(p.status)} (${String(p.phase)})${update ? `: ${clip(update)}` : ""}`;
      },
    };
  }
  if (op === "bash") {
    const specs = [args.stdoutLineEvent, args.stderrLineEvent, args.exitEvent] as ({ bus?: unknown } | undefined)[];
    const buses = [...new Set(specs.filter((s) => s && typeof s === "object").map((s) => str(s!.bus) ?? "thebus"))];
    return { buses, verb: "running", describe: (p) => clip(JSON.stringify(p)) };
  }
  if (op === "prompt") return promptPlan(claw, args);
  return undefined;
}

/** Ops that report progress. */
export const PROGRESS_OPS: ReadonlySet<string> = new Set(["prompt", "bash", "check_task", "read"]);

/** True for the calls that may run long: `prompt`, `bash`, `check_task`, and `read` with `waitMs`. */
export function isLongCall(op: string, args: Args): boolean {
  if (op === "read") return typeof args.waitMs === "number" && args.waitMs > 0;
  return PROGRESS_OPS.has(op);
}

/**
 * Starts reporting the progress of one call; returns the function that stops it (call it
 * before the result is sent). Does nothing for calls that have no progress to report.
 */
export function startProgress(
  claw: Claw,
  op: string,
  args: Args,
  send: (report: ProgressReport) => void,
  heartbeatMs: number,
): () => void {
  const planned = PROGRESS_OPS.has(op) ? planFor(claw, op, args) : undefined;
  if (!planned) return () => {};
  const started = performance.now();
  if (!(planned instanceof Promise)) return follow(claw, planned, started, send, heartbeatMs);
  // The session's bus is known once its lookup returns, long before its run publishes anything.
  let stop: (() => void) | undefined;
  let stopped = false;
  planned.then(
    (plan) => {
      if (!stopped) stop = follow(claw, plan, started, send, heartbeatMs);
    },
    () => {},
  );
  return () => {
    stopped = true;
    stop?.();
  };
}

/** Reports `plan`'s events and a heartbeat until the returned function is called. */
function follow(
  claw: Claw,
  plan: ProgressPlan,
  started: number,
  send: (report: ProgressReport) => void,
  heartbeatMs: number,
): () => void {
  let last = 0;
  const report = (message: string) => {
    // strictly increasing, as MCP requires, even for two events in the same millisecond
    last = Math.max(last + 1, Math.round(performance.now() - started));
    send({ progress: last, ...(plan.total !== undefined ? { total: plan.total } : {}), message });
  };
  const onEvent = ({ payload }: BusEvent) => {
    const p =
      payload !== null && typeof payload === "object" ? (payload as Record<string, unknown>) : { value: payload };
    const message = plan.describe(p);
    if (message !== undefined) report(message);
  };
  // A bus name the call's arguments get wrong is refused here as by the call itself: no progress from it.
  const unlisten = plan.buses.flatMap((bus) => {
    try {
      return [claw.bus.subscribe({ bus }, onEvent)];
    } catch {
      return [];
    }
  });
  const timer = setInterval(
    () => report(`${plan.verb} for ${Math.round((performance.now() - started) / 1000)} s`),
    heartbeatMs,
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const off of unlisten) off();
  };
}
