/**
 * The tool executor of a run: the model's bash calls, run with the run's context in the
 * environment (session, task, bus, and when served the URL and a token scoped to the run).
 */
import type { BashRunner } from "../bash/bash-runner.js";
import type { ToolExecutor } from "./agent-loop.js";
import { runBashTool } from "./bash-tool.js";

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

/** Runs each call with bash. */
export function bashExecutor(bash: BashRunner, contextEnv: RunEnv): ToolExecutor {
  return {
    execute: (call, signal) => runBashTool(bash, call.name, call.arguments, { signal, contextEnv: { ...contextEnv } }),
  };
}
