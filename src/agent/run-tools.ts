/**
 * The tool executor of a run: the model's bash calls, run with the run's context in the
 * environment (session, task, bus, and when served the URL and a token scoped to the run).
 */
import type { BashRunner } from "../bash/bash-runner.js";
import type { ToolExecutor } from "./agent-loop.js";
import { runBashTool } from "./bash-tool.js";
import { LiveOutput, type LiveOutputChunk } from "./live-output.js";

/** The variables a run's bash sees (unset ones are left out). */
export interface RunEnv {
  CLAW_SESSION_ID: string;
  CLAW_SESSION_KEY: string;
  CLAW_TASK_ID: string | undefined;
  CLAW_BUS: string;
  CLAW_URL: string | undefined;
  /** Scoped to this run, never the server's token. */
  CLAW_TOKEN: string | undefined;
}

/**
 * Runs each call with bash. A call's output is published live through `onLive` while it runs
 * (coalesced, capped: see LiveOutput), and flushed before the call's result is announced.
 */
export function bashExecutor(
  bash: BashRunner,
  contextEnv: RunEnv,
  onLive?: (callId: string, chunk: LiveOutputChunk) => void,
): ToolExecutor {
  return {
    execute: async (call, signal) => {
      const live = onLive ? new LiveOutput((chunk) => onLive(call.callId, chunk)) : undefined;
      try {
        return await runBashTool(bash, call.name, call.arguments, {
          signal,
          contextEnv: { ...contextEnv },
          bus: contextEnv.CLAW_BUS,
          ...(live ? { onOutput: (stream, chunk) => live.push(stream, chunk) } : {}),
        });
      } finally {
        live?.flush(); // the output before the result that holds it
      }
    },
  };
}
