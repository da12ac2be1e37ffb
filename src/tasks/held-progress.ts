/**
 * A run's progress on its way to the task, with the progress of an event that is always followed
 * at once by another held for the change that follows it: an assistant message (followed by the
 * tool calls it made, or by the run's end) and a tool call's end (followed by the next call, or
 * the next turn's start). Written with that change, it costs no write (no statement, no task
 * version, no task event) of its own, and nothing of it is lost: its text stays the latest
 * update unless the next change brings a newer one, and its timeline line goes in with the next
 * change's. If nothing follows within `HOLD_MS` it is written alone, as before.
 */
import type { Progress } from "./run-events.js";
import type { TaskPhase } from "./task-schema.js";

/** The longest held progress waits for the change that follows it. */
const HOLD_MS = 250;

/** Progress to write: the phase and latest update to set, and the timeline lines to append. */
export interface PendingProgress {
  phase?: TaskPhase;
  update?: string;
  timeline: string[];
}

/** One run's held progress. */
export class HeldProgress {
  private held: PendingProgress | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Writes what was held when nothing followed it in time. */
    private readonly flush: (p: PendingProgress) => void,
    private readonly holdMs = HOLD_MS,
  ) {}

  /**
   * Takes the progress of one event. Returns what to write now (with anything held before it),
   * or undefined: nothing to write, or held (`hold`: see `holds`).
   */
  add(p: Progress, hold: boolean): PendingProgress | undefined {
    if (!p.update && !p.phase) return undefined;
    const merged = after(this.take(), p);
    if (!hold) return merged;
    this.held = merged;
    this.timer = setTimeout(() => {
      const held = this.take();
      if (held) this.flush(held);
    }, this.holdMs);
    this.timer.unref();
    return undefined;
  }

  /** What is held (now the caller's to write), if anything. */
  take(): PendingProgress | undefined {
    clearTimeout(this.timer);
    this.timer = undefined;
    const held = this.held;
    this.held = undefined;
    return held;
  }
}

/** `p` written over `before`: its phase and update win, the timeline lines of both are kept. */
function after(before: PendingProgress | undefined, p: Progress): PendingProgress {
  return {
    phase: p.phase ?? before?.phase,
    update: p.update ?? before?.update,
    timeline: [...(before?.timeline ?? []), ...(p.timeline !== undefined ? [p.timeline] : [])],
  };
}

/** Events whose progress waits for the change after them. */
export function holds(e: { type: string }): boolean {
  return e.type === "message" || e.type === "tool_execution_end";
}
