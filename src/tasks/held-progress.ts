/**
 * A run's progress on its way to the task, coalesced: what its events report within `HOLD_MS`
 * of the first one not yet written goes in one write then, or with the task's next change if
 * that comes first (the run's end takes what is still held). A state that lasts less than that
 * (a model that answers at once, a quick command, an assistant message followed by its tool
 * calls) costs no write of its own: no statement, no task version, no task event. Nothing of it
 * is lost: the latest update wins and every timeline line is kept. A watcher sees a state at
 * most `HOLD_MS` after it began.
 */
import type { Progress } from "./run-events.js";
import type { TaskPhase } from "./task-schema.js";
import { TERMINAL } from "./task-status.js";
import type { TaskChange, TaskRecord } from "./task-store.js";

/** The longest progress waits before it is written. */
const HOLD_MS = 250;

/** Progress to write: the phase and latest update to set, and the timeline lines to append. */
export interface PendingProgress {
  phase?: TaskPhase;
  update?: string;
  timeline: string[];
  /** When the newest of its events happened (epoch ms): a change of the task after it is newer. */
  at: number;
}

/** One run's held progress. */
export class HeldProgress {
  private held: PendingProgress | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Writes what was held once its time is up. */
    private readonly flush: (p: PendingProgress) => void,
    private readonly holdMs = HOLD_MS,
  ) {}

  /** Takes the progress of one event (one that changes nothing is ignored). */
  add(p: Progress): void {
    if (!p.update && !p.phase) return;
    this.held = after(this.held, p);
    if (this.timer) return; // the first held event's time bounds the wait
    this.timer = setTimeout(() => {
      const held = this.take();
      if (held) this.flush(held);
    }, this.holdMs);
    this.timer.unref();
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
    at: Date.now(),
  };
}

/**
 * The change held progress `p` makes to its task as stored (undefined: none). The run's events
 * move a running task's phase and latest update. A task changed since the events (an approval
 * asked, the task updated) or not running (waiting on a human: an approval's question, the
 * agent's own block) says something newer, or what it waits for: the events keep only their
 * timeline lines. (The times alone missed a question that came in the same millisecond as the
 * events.) A record that is final (cancelled, interrupted) takes nothing.
 */
export function progressChange(t: TaskRecord, p: PendingProgress): TaskChange | undefined {
  if (TERMINAL.has(t.status)) return undefined;
  const linesOnly = p.timeline.length > 0 ? { patch: {}, timeline: p.timeline } : undefined;
  if (t.updatedAt > p.at || t.status !== "in_progress") return linesOnly;
  const latestUpdate = p.update ? { at: Date.now(), text: p.update } : undefined;
  if ((p.phase === undefined || p.phase === t.phase) && !latestUpdate) return linesOnly;
  return { patch: { phase: p.phase, latestUpdate }, timeline: p.timeline };
}
