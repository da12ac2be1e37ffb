/**
 * One run of the agent loop: user message → streamed model turn → each function call run in
 * order → outputs appended → next turn, until the model answers without a tool call. Steering
 * lands at turn boundaries (calls not yet started get a "skipped" output), follow-ups when the
 * run would end. Every message is persisted as it completes.
 */
import type OpenAI from "openai";
import type { BashRunner } from "../bash/bash-runner.js";
import type { ClawConfig } from "../config.js";
import { ClawError, toClawError } from "../errors.js";
import { bashTool, parseToolArgs, runBashTool, type ToolOutcome } from "./bash-tool.js";
import { contextMessages, toInput } from "./history.js";
import { DEFAULT_INSTRUCTIONS } from "./instructions.js";
import { withModelRetry } from "./model-retry.js";
import { type ModelCall, streamTurn } from "./responses-stream.js";
import { eventSizedResult, type RunEvents } from "./run-events.js";
import type { RunResult, Session, Usage } from "./session-schemas.js";
import type { SessionStore } from "./session-store.js";

/** Messages waiting for a session's run. */
export interface SessionQueues {
  steering: string[];
  followUp: string[];
}

/** Everything one run needs. */
export interface AgentRunDeps {
  config: ClawConfig;
  store: SessionStore;
  bash: BashRunner;
  client: OpenAI;
  events: RunEvents;
  queues: SessionQueues;
}

/** One run's identity and control. */
export interface AgentRunContext {
  session: Session;
  runId: string;
  taskId?: string;
  signal: AbortSignal;
}

/** Runs the loop to its end; never throws (failures become the result's status and error). */
export async function executeRun(deps: AgentRunDeps, ctx: AgentRunContext, message: string): Promise<RunResult> {
  const { store, events, queues, config } = deps;
  const { session, runId, signal } = ctx;
  const usage: Usage = { input: 0, output: 0, total: 0 };
  let turns = 0;
  let toolCalls = 0;
  let lastText = "";
  let status: RunResult["status"];
  let error: RunResult["error"];

  const addUser = (text: string, via?: "steering" | "follow_up") => {
    const m = store.append(session.sessionId, { runId, role: "user", text });
    events.emit("message", { role: "user", text, messageId: m.id, ...(via ? { via } : {}) });
  };
  const drain = (queue: string[], via: "steering" | "follow_up", count = queue.length): boolean => {
    const taken = queue.splice(0, count);
    for (const text of taken) addUser(text, via);
    return taken.length > 0;
  };
  const contextEnv = (): Record<string, string | undefined> => ({
    CLAW_SESSION_ID: session.sessionId,
    CLAW_SESSION_KEY: session.sessionKey,
    CLAW_TASK_ID: ctx.taskId,
    CLAW_BUS: session.bus,
    CLAW_URL: config.url,
    CLAW_TOKEN: config.token,
  });
  const finishCall = (call: ModelCall, outcome: ToolOutcome, extra: Record<string, unknown> = {}) => {
    store.append(session.sessionId, {
      runId,
      role: "tool_result",
      callId: call.callId,
      name: call.name,
      result: outcome.result,
      isError: outcome.isError,
    });
    events.emit("tool_execution_end", {
      callId: call.callId,
      name: call.name,
      result: eventSizedResult(outcome.result),
      isError: outcome.isError,
      ...extra,
    });
  };

  events.emit("agent_start", { message, model: session.model, provider: session.provider });
  try {
    addUser(message);
    drain(queues.steering, "steering");
    for (;;) {
      if (turns >= config.maxTurns)
        throw new ClawError(
          "turn_limit",
          `the run reached the turn limit (${config.maxTurns} model calls) without a final answer`,
          { maxTurns: config.maxTurns },
        );
      turns++;
      events.emit("turn_start", { turn: turns });
      const input = toInput(contextMessages(store.allMessages(session.sessionId)));
      const out = await withModelRetry(
        () =>
          streamTurn(deps.client, {
            model: session.model,
            instructions: session.instructions ?? DEFAULT_INSTRUCTIONS,
            input,
            tools: [bashTool],
            signal,
            streamText: session.streamText,
            onEvent: (e) => events.raw(e),
          }),
        {
          policy: config.modelRetry,
          signal,
          onRetry: ({ attempt, delayMs, failure }) =>
            events.emit("retry", {
              turn: turns,
              attempt,
              delayMs,
              status: failure.status,
              error: { code: failure.error.code, message: failure.error.message },
            }),
        },
      );
      usage.input += out.usage.input;
      usage.output += out.usage.output;
      usage.total += out.usage.total;

      const calls: ModelCall[] = [];
      for (const o of out.outputs) {
        if (o.kind === "text") {
          const m = store.append(session.sessionId, { runId, role: "assistant", text: o.text });
          events.emit("message", { role: "assistant", text: o.text, messageId: m.id });
          lastText = o.text;
        } else {
          const parsed = parseToolArgs(o.arguments);
          store.append(session.sessionId, {
            runId,
            role: "tool_call",
            callId: o.callId,
            name: o.name,
            args: parsed.error ? o.arguments : parsed.args,
          });
          calls.push(o);
        }
      }

      for (const call of calls) {
        if (queues.steering.length > 0) {
          finishCall(
            call,
            {
              result: {
                error: { code: "skipped", message: "skipped: the user sent a new message before this call started" },
              },
              isError: true,
            },
            { skipped: true },
          );
          continue;
        }
        toolCalls++;
        const parsed = parseToolArgs(call.arguments);
        events.emit("tool_execution_start", {
          callId: call.callId,
          name: call.name,
          args: parsed.error ? call.arguments : parsed.args,
        });
        let outcome: ToolOutcome;
        try {
          outcome = await runBashTool(deps.bash, call.name, call.arguments, { signal, contextEnv: contextEnv() });
        } catch (err) {
          finishCall(call, {
            result: { error: { code: "cancelled", message: "the run was aborted while this call was running" } },
            isError: true,
          });
          throw err;
        }
        finishCall(call, outcome);
      }

      if (drain(queues.steering, "steering")) continue;
      if (calls.length > 0) continue;
      // One follow-up at a time, each answered before the next is delivered.
      if (drain(queues.followUp, "follow_up", 1)) continue;
      break;
    }
    status = lastText !== "" ? "completed" : "completed_no_summary";
  } catch (err) {
    const e = toClawError(err);
    if (signal.aborted || e.code === "cancelled") {
      status = "cancelled";
      error = { code: "cancelled", message: "the run was aborted" };
    } else {
      status = "error";
      error = {
        code: e.code,
        message: err instanceof ClawError ? e.message : `internal error: ${(err as Error)?.message ?? String(err)}`,
      };
      if (!(err instanceof ClawError))
        config.log(`tsclaw: run ${runId} failed: ${(err as Error)?.stack ?? String(err)}`);
    }
  }
  const result: RunResult = { sessionId: session.sessionId, runId, status, text: lastText, usage, turns, toolCalls };
  if (error) result.error = error;
  store.endRun(runId, { status, turns, toolCalls, usage, error });
  events.emit("agent_end", { status, ...(error ? { error } : {}), text: lastText, usage, turns, toolCalls });
  return result;
}
