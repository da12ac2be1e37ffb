/**
 * The postcondition (`expect`): what a firing's work must show to be `ok`, and the reason
 * recorded when it does not. A task that ended because its process or node went away is
 * `interrupted`, whatever was expected.
 */
import type { BashResult } from "../bash/bash-schema.js";
import type { TaskStatus } from "../tasks/task-schema.js";
import type { Expect } from "./schedule-schema.js";

/** What a firing's task shows. */
export interface TaskOutcome {
  status: TaskStatus;
  error: { code: string; message: string } | null;
  hasReceipt: boolean;
}

/** A verdict: ok, or the reason it is not. */
export interface Verdict {
  ok: boolean;
  reason: string | null;
}

const LOST = new Set(["interrupted", "node_lost"]);

/** A runTask firing's verdict. Default expectation: status completed. */
export function checkTask(t: TaskOutcome, expect: Expect): Verdict {
  if (t.status === "error" && t.error && LOST.has(t.error.code)) return { ok: false, reason: "interrupted" };
  const statuses = expect.status ?? ["completed"];
  if (!statuses.includes(t.status)) {
    const why = t.error ? ` (${t.error.code}: ${t.error.message})` : "";
    return { ok: false, reason: `task ended ${t.status}${why}; expected ${statuses.join(" or ")}` };
  }
  if (expect.receipt && !t.hasReceipt) return { ok: false, reason: `task ended ${t.status} without a receipt` };
  return { ok: true, reason: null };
}

/** A bash firing's verdict. Default expectation: exit code 0 (a timeout never counts). */
export function checkBash(r: BashResult, expect: Expect): Verdict {
  if (r.timeout) return { ok: false, reason: "bash timed out" };
  const codes =
    expect.exitCode === undefined ? [0] : Array.isArray(expect.exitCode) ? expect.exitCode : [expect.exitCode];
  if (!codes.includes(r.exitCode))
    return { ok: false, reason: `exit code ${r.exitCode}; expected ${codes.join(" or ")}` };
  return { ok: true, reason: null };
}
