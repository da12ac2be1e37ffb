/**
 * Turns the agent's lifecycle events into task progress: the phase, the latest meaningful
 * update, and (for the few events worth keeping) a compact timeline line.
 */
import type { AgentEvent } from "../agent/agent-events.js";
import type { TaskPhase } from "./task-schema.js";

/** What one event changes. */
export interface Progress {
  phase?: TaskPhase;
  /** New latestUpdate text. */
  update?: string;
  /** Line for the timeline, when the event is worth keeping there. */
  timeline?: string;
}

const MAX_UPDATE = 300;

/** Cuts `text` to `max` characters on one line. */
export function clip(text: string, max = MAX_UPDATE): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function firstLine(script: unknown): string {
  if (typeof script !== "string") return "";
  return script.split("\n").find((l) => l.trim() !== "") ?? "";
}

function scriptOf(args: unknown): unknown {
  if (typeof args === "string") {
    try {
      return (JSON.parse(args) as { script?: unknown }).script;
    } catch {
      return undefined;
    }
  }
  return (args as { script?: unknown } | null | undefined)?.script;
}

/** Maps one lifecycle event to progress; events that say nothing new change nothing. */
export function progressOf(e: AgentEvent): Progress {
  switch (e.type) {
    // agent_start says nothing the task does not show already ("run starting", then the first
    // turn's start a moment later): a change of its own would be one more write and task
    // event per run for a state no one sees for long.
    case "turn_start":
      return { phase: "waiting_model", update: `waiting for the model (turn ${e.turn})` };
    case "tool_execution_start": {
      const text = `running ${e.name}: ${clip(firstLine(scriptOf(e.args)), 200)}`;
      return { phase: "running_tool", update: text, timeline: text };
    }
    case "tool_execution_end": {
      const code = (e.result as { exitCode?: unknown } | undefined)?.exitCode;
      const text =
        typeof code === "number" ? `${e.name} exited ${code}` : e.isError ? "tool call failed" : "tool call ended";
      return { phase: "waiting_model", update: text };
    }
    case "message": {
      if (e.role !== "assistant" || e.text.trim() === "") return {};
      return { update: clip(e.text), timeline: `assistant: ${clip(e.text, 200)}` };
    }
    case "retry": {
      const text = `retrying the model call: ${clip(e.error.message, 200)}`;
      return { update: text, timeline: text };
    }
    default:
      return {};
  }
}
