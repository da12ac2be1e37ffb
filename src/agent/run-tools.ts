/**
 * The tool calls of one model response, run in order. A call not yet started when a steering
 * message is waiting gets a "skipped" output instead; every call ends with a stored result, a
 * cancelled one included, so the history stays valid for the next request.
 */

import type { AgentRunContext, AgentRunDeps } from "./agent-run.js";
import { parseToolArgs, runBashTool, type ToolOutcome } from "./bash-tool.js";
import type { ModelCall } from "./output-items.js";
import { eventSizedResult } from "./run-events.js";

const SKIPPED: ToolOutcome = {
  result: { error: { code: "skipped", message: "skipped: the user sent a new message before this call started" } },
  isError: true,
};
const CANCELLED: ToolOutcome = {
  result: { error: { code: "cancelled", message: "the run was aborted while this call was running" } },
  isError: true,
};

/** Runs `calls`; returns how many ran. Throws only `cancelled` (after storing the call's result). */
export async function runCalls(deps: AgentRunDeps, ctx: AgentRunContext, calls: readonly ModelCall[]): Promise<number> {
  const { store, events, config } = deps;
  const { session, runId } = ctx;
  const contextEnv = {
    CLAW_SESSION_ID: session.sessionId,
    CLAW_SESSION_KEY: session.sessionKey,
    CLAW_TASK_ID: ctx.taskId,
    CLAW_BUS: session.bus,
    CLAW_URL: config.url,
    CLAW_TOKEN: ctx.token, // scoped to this run, never the server's token
  };
  const finish = async (call: ModelCall, outcome: ToolOutcome, skipped = false) => {
    await store.append(session.sessionId, {
      runId,
      role: "tool_result",
      callId: call.callId,
      name: call.name,
      result: outcome.result,
      isError: outcome.isError,
    });
    events.emit({
      type: "tool_execution_end",
      callId: call.callId,
      name: call.name,
      result: eventSizedResult(outcome.result),
      isError: outcome.isError,
      ...(skipped ? { skipped } : {}),
    });
  };
  let ran = 0;
  for (const call of calls) {
    if (await store.queue.has(session.sessionId, "steer")) {
      await finish(call, SKIPPED, true);
      continue;
    }
    ran++;
    const parsed = parseToolArgs(call.arguments);
    events.emit({
      type: "tool_execution_start",
      callId: call.callId,
      name: call.name,
      args: parsed.error ? call.arguments : parsed.args,
    });
    let outcome: ToolOutcome;
    try {
      outcome = await runBashTool(deps.bash, call.name, call.arguments, {
        signal: ctx.signal,
        contextEnv,
        bus: session.bus,
      });
    } catch (err) {
      await finish(call, CANCELLED);
      throw err;
    }
    await finish(call, outcome);
  }
  return ran;
}
