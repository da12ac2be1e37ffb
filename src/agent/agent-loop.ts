/**
 * The agent loop itself, over a context held in memory: model turn → each function call run in
 * order → outputs appended → next turn, until the model answers without a tool call. It knows no
 * database: the model, the tools, the storage of each item and the session's waiting steering
 * and follow-up messages are all behind the interfaces below, so a test drives it with a scripted
 * model and an in-memory port, and a stored run resumes by loading its context once.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { ClawError } from "../core/errors.js";
import type { AgentEventInput } from "./agent-events.js";
import { parseToolArgs, type ToolOutcome } from "./bash-tool.js";
import { callOf, type ModelCall } from "./output-items.js";
import type { OutputItem, TurnOutput } from "./responses-stream.js";
import type { RunContext } from "./run-context.js";
import { eventSizedResult } from "./run-events.js";
import type { FoldedRead } from "./run-rows.js";
import type { Message, Usage } from "./session-schemas.js";
import type { NewMessage } from "./session-store.js";
import { addUsage } from "./usage.js";

/** Where the run's messages go as they arrive (a database, or memory in a test). */
export interface RunStorePort {
  /** Stores one of the run's messages (a model output item, a tool result); returns it as stored. */
  append(m: Omit<NewMessage, "runId">): Promise<Message>;
  /** Stores one output item of the model verbatim; returns it as stored. */
  appendItem(item: OutputItem): Promise<Message>;
}

/** The session's waiting user messages; each callback stores what it hands over before returning it. */
export interface RunInbox {
  /** Every waiting steering message, now part of the history. */
  steering(): Promise<Message[]>;
  /** True when a steering message waits (the calls not yet started are skipped). */
  hasSteering(): Promise<boolean>;
  /** The next follow-up (at most one), now part of the history. */
  followUp(): Promise<Message[]>;
  /** Which kinds wait, in one look (at a turn's end, where almost always nothing does). */
  waiting(): Promise<{ steering: boolean; followUp: boolean }>;
}

/** Runs the model's tool calls. */
export interface ToolExecutor {
  /** Runs one call. Throws only `cancelled` (the run was aborted while it ran). */
  execute(call: ModelCall, signal: AbortSignal): Promise<ToolOutcome>;
}

/** Judges each call before it starts (approvals); may wait for a decision, which pauses the run. */
export interface CallGate {
  /**
   * Undefined: the call runs. An outcome: the call never runs and the model gets this instead.
   * Throws {@link RunPaused} to leave the call pending and the run unfinished.
   */
  admit(call: ModelCall, signal: AbortSignal): Promise<ToolOutcome | undefined>;
}

/**
 * Thrown by a gate to stop the run where it is, its call left without a result (the server is
 * closing, or another node took the run over): the run is not ended, and whoever resumes it
 * later starts from that call.
 */
export class RunPaused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunPaused";
  }
}

/** Gives each run its gate (the claw's approvals). */
export interface RunGates {
  /**
   * The read of the run's policy, which the run makes in the statement that records its start;
   * its rows are then handed to `forRun` (`policyRows`).
   */
  policyRead(run: { sessionId: string; taskId?: string }): FoldedRead;
  /** The gate of one run; undefined when its calls need no approval. */
  forRun(
    run: {
      sessionId: string;
      bus: string;
      runId: string;
      taskId?: string;
      /** A paused run going on: it always gets a gate (its paused call was decided under a policy). */
      resumed?: boolean;
    },
    /** The rows of `policyRead`, read by the run; else the gate reads them. */
    policyRows?: Promise<unknown[]>,
  ): Promise<CallGate | undefined>;
}

/** Everything the loop talks to. */
export interface AgentLoopConfig {
  /** A run ends with `turn_limit` after this many model calls without a final answer. */
  maxTurns: number;
  signal: AbortSignal;
  /** One model turn over the context's input (retries are its own business). */
  model(input: ResponseInputItem[], turn: number): Promise<TurnOutput>;
  store: RunStorePort;
  inbox: RunInbox;
  tools: ToolExecutor;
  /** Judges calls before they start. Default: every call runs */
  gate?: CallGate;
  /** Publishes a lifecycle event. */
  emit(e: AgentEventInput): void;
}

/** What the loop has done so far; kept up to date as it goes, so a failed run still reports it. */
export interface LoopProgress {
  turns: number;
  toolCalls: number;
  usage: Usage;
  /** The run's answer so far: its last final assistant text (else its last commentary). */
  text: string;
  final: boolean;
  refusal: boolean;
}

const SKIPPED: ToolOutcome = {
  result: { error: { code: "skipped", message: "skipped: the user sent a new message before this call started" } },
  isError: true,
};
const CANCELLED: ToolOutcome = {
  result: { error: { code: "cancelled", message: "the run was aborted while this call was running" } },
  isError: true,
};

/**
 * Runs turns until the model answers without a call and no follow-up waits. `pending` are calls
 * of the last stored turn that still need their results (a resumed run). Throws the run's
 * failure (`turn_limit`, `model_incomplete`, `cancelled`, provider errors); `progress` holds
 * what was done up to it.
 */
export async function runAgentLoop(
  cfg: AgentLoopConfig,
  context: RunContext,
  progress: LoopProgress,
  pending: readonly ModelCall[] = [],
): Promise<void> {
  const take = async (messages: Promise<Message[]>, via: "steering" | "follow_up") => {
    const taken = await messages;
    for (const m of taken) {
      context.add(m);
      cfg.emit({ type: "message", role: "user", text: m.text ?? "", messageId: m.id, via });
    }
    return taken.length > 0;
  };

  // Another turn when steering arrived, the model called tools, or a follow-up was waiting. One
  // look says what waits; a kind is taken only when some of it does.
  const wantsTurn = async (calls: readonly ModelCall[]) => {
    const waiting = await cfg.inbox.waiting();
    return (
      (waiting.steering && (await take(cfg.inbox.steering(), "steering"))) ||
      calls.length > 0 ||
      (waiting.followUp && (await take(cfg.inbox.followUp(), "follow_up")))
    );
  };

  let more: boolean;
  if (pending.length > 0) {
    progress.toolCalls += await runCalls(cfg, context, pending);
    more = await wantsTurn(pending);
  } else {
    await take(cfg.inbox.steering(), "steering");
    more = true;
  }
  while (more) {
    if (progress.turns >= cfg.maxTurns)
      throw new ClawError(
        "turn_limit",
        `the run reached the turn limit (${cfg.maxTurns} model calls) without a final answer`,
        { maxTurns: cfg.maxTurns },
      );
    progress.turns++;
    cfg.emit({ type: "turn_start", turn: progress.turns });
    const out = await cfg.model(context.input(), progress.turns);
    addUsage(progress.usage, out.usage);
    const calls = await storeOutput(cfg, context, progress, out.items);
    if (out.status === "incomplete") {
      throw new ClawError(
        "model_incomplete",
        `the model stopped before finishing its answer (${out.incompleteReason ?? "no reason given"}); the partial answer is kept`,
        { reason: out.incompleteReason ?? null },
      );
    }
    progress.toolCalls += await runCalls(cfg, context, calls);
    more = await wantsTurn(calls);
  }
}

/** Stores a turn's items in output order, one at a time, before any call runs; returns its calls. */
async function storeOutput(
  cfg: AgentLoopConfig,
  context: RunContext,
  progress: LoopProgress,
  items: readonly OutputItem[],
): Promise<ModelCall[]> {
  const calls: ModelCall[] = [];
  for (const item of items) {
    const stored = await cfg.store.appendItem(item);
    context.add(stored);
    const call = callOf(item);
    if (call) calls.push(call);
    if (stored.role === "assistant") {
      const text = stored.text ?? "";
      cfg.emit({
        type: "message",
        role: "assistant",
        text,
        messageId: stored.id,
        ...(stored.phase ? { phase: stored.phase } : {}),
        ...(stored.refusal ? { refusal: true } : {}),
      });
      // A final answer wins over commentary that comes after it in the same run.
      const final = stored.phase !== "commentary";
      if (text !== "" && (final || !progress.final)) {
        progress.text = text;
        progress.final = final;
        progress.refusal = stored.refusal === true;
      }
    } else if (stored.role === "reasoning" && stored.text) {
      cfg.emit({ type: "message", role: "reasoning", text: stored.text, messageId: stored.id });
    }
  }
  return calls;
}

/**
 * Runs `calls` in order; returns how many ran. A call not yet started when a steering message
 * waits gets a "skipped" output; every call ends with a stored result, a cancelled one included,
 * so the history stays valid for the next request.
 */
async function runCalls(cfg: AgentLoopConfig, context: RunContext, calls: readonly ModelCall[]): Promise<number> {
  const finish = async (call: ModelCall, outcome: ToolOutcome, skipped = false) => {
    const stored = await cfg.store.append({
      role: "tool_result",
      callId: call.callId,
      name: call.name,
      result: outcome.result,
      isError: outcome.isError,
    });
    context.add(stored);
    cfg.emit({
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
    if (await cfg.inbox.hasSteering()) {
      await finish(call, SKIPPED, true);
      continue;
    }
    let refused: ToolOutcome | undefined;
    try {
      refused = await cfg.gate?.admit(call, cfg.signal);
    } catch (err) {
      if (err instanceof RunPaused) throw err;
      await finish(call, CANCELLED);
      throw err;
    }
    if (refused) {
      await finish(call, refused);
      continue;
    }
    ran++;
    const parsed = parseToolArgs(call.arguments);
    cfg.emit({
      type: "tool_execution_start",
      callId: call.callId,
      name: call.name,
      args: parsed.error ? call.arguments : parsed.args,
    });
    let outcome: ToolOutcome;
    try {
      outcome = await cfg.tools.execute(call, cfg.signal);
    } catch (err) {
      await finish(call, CANCELLED);
      throw err;
    }
    await finish(call, outcome);
  }
  return ran;
}
