/**
 * Turns the agent's lifecycle events into task progress: the phase, the latest meaningful
 * update, and (for the few events worth keeping) a compact timeline line.
 */
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

/** Maps one lifecycle payload to progress; unknown events change nothing. */
export function progressOf(e: Record<string, unknown>): Progress {
  switch (e.type) {
    case "agent_start":
      return { phase: "waiting_model", update: "run started" };
    case "turn_start": {
      const turn = typeof e.turn === "number" ? ` (turn ${e.turn})` : "";
      return { phase: "waiting_model", update: `waiting for the model${turn}` };
    }
    case "tool_execution_start": {
      const text = `running ${String(e.name ?? "bash")}: ${clip(firstLine(scriptOf(e.args)), 200)}`;
      return { phase: "running_tool", update: text, timeline: text };
    }
    case "tool_execution_end": {
      const code = (e.result as { exitCode?: unknown } | undefined)?.exitCode;
      const text =
        typeof code === "number"
          ? `${String(e.name ?? "bash")} exited ${code}`
          : e.isError
            ? "tool call failed"
            : "tool call ended";
      return { phase: "waiting_model", update: text };
    }
    case "message": {
      if (e.role !== "assistant" || typeof e.text !== "string" || e.text.trim() === "") return {};
      const text = clip(e.text);
      return { update: text, timeline: `assistant: ${clip(e.text, 200)}` };
    }
    case "retry": {
      const err = e.error as { message?: unknown } | string | undefined;
      const why = typeof err === "string" ? err : typeof err?.message === "string" ? err.message : "provider error";
      const text = `retrying the model call: ${clip(why, 200)}`;
      return { update: text, timeline: text };
    }
    default:
      return {};
  }
}
