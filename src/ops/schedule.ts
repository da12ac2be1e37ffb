/**
 * Schedule operations: durable schedules (cron, every, at) that fire a run task, a bash script
 * or a bus event, each due time fired once and recorded with its outcome (schedule_firings).
 */
import { z } from "zod";
import {
  scheduleCreateInput,
  scheduleFiringsInput,
  scheduleFiringsOutput,
  scheduleListInput,
  scheduleListOutput,
  scheduleRefInput,
  scheduleUpdateInput,
} from "../schedules/schedule-inputs.js";
import { firingSchema, scheduleSchema } from "../schedules/schedule-schema.js";
import { defineOp } from "./registry.js";

const EXAMPLE_ID = "sch_00000000-0000-0000-0000-000000000000";
const WRITE = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const READ = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

export const scheduleCreateOp = defineOp({
  name: "schedule_create",
  group: "schedule",
  flags: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  summary:
    "Create a durable schedule (cron with timezone, every, or at) that fires a run task, bash or a bus event; each due time fires once, on one node.",
  notes: [
    '`when`: `{cron, timezone?}` (5 fields: minute hour day-of-month month day-of-week; lists, ranges, steps, names such as `mon-fri` and `jan`, or `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`; an IANA timezone, default UTC), `{every, from?}` (a Go duration of at least 1s; the cadence counts from `from`, default from creation, so a restart never resets it) or `{at}` (once). Around daylight-saving changes a local time that does not exist fires once at the next instant that does, and a repeated local time fires once. An invalid expression, timezone, duration or time is `invalid_args` naming the field (`details.issues[].path`, e.g. `["when","timezone"]`); nothing is stored.',
    "`action`: `{runTask: {prompt, sessionKey?, title?, project?}}` (a durable task per firing; the task carries `scheduleId` and `firingAt`), `{bash: {…the bash operation's arguments}}` (its result is kept with the firing) or `{out: {bus?, payload}}`.",
    'Policies: `overlap` (a due time arrives while the previous firing\'s work runs): `skip` (default; recorded skipped), `queue` (at most one waits), `cancel_previous` (the running one is `failed`, its task cancelled or bash killed). `missed` (due times that passed while no node ran, or while paused): `skip`, `latest` (default: fire the newest), `all` (each, oldest first, at most `maxCatchUp`, default 10); the others are recorded `missed`. `jitter`: a random delay up to it before each firing. `deadline`: a firing not finished within it becomes `overdue`, then its final outcome (both are events). `expect`: the postcondition for `ok`, default `{status: ["completed"]}` for runTask and `{exitCode: 0}` for bash; e.g. `{status: ["done"], receipt: true}` (the agent completed through task_update with a receipt).',
    'Every due time gets one firing (schedule_firings) with its outcome and reason; each outcome change is an event on the bus `schedules` (`{type: "schedule_firing", scheduleId, name, firingAt, outcome, reason?, taskId?}`); schedule changes are `{type: "schedule_changed", scheduleId, change, version, node}` there. `health.status` is `late` when a due time passed more than the deadline (or 60 s) ago with no firing started, `failing` after a failed firing, `healthy` after an ok one. At most 10 000 schedules (`limit_reached`); each keeps its newest 1 000 firings.',
  ].join("\n\n"),
  input: scheduleCreateInput,
  output: scheduleSchema,
  example: {
    name: "todo-report",
    when: { cron: "*/5 * * * *", timezone: "Europe/Berlin" },
    action: {
      runTask: { prompt: "Count the TODO lines in this repository and report the number", sessionKey: "todo-report" },
    },
    expect: { status: ["done"], receipt: true },
    deadline: "10m",
  },
  errors: ["limit_reached"],
  handle: "schedule.create",
  handler: (args, { services }) => services.schedules.create(args),
});

export const scheduleGetOp = defineOp({
  name: "schedule_get",
  group: "schedule",
  flags: READ,
  summary: "A schedule: its definition, next due time, last firing and health.",
  input: scheduleRefInput,
  output: scheduleSchema,
  example: { scheduleId: EXAMPLE_ID },
  errors: ["not_found"],
  handle: "schedule.get",
  handler: (args, { services }) => services.schedules.get(args.scheduleId),
});

export const scheduleListOp = defineOp({
  name: "schedule_list",
  group: "schedule",
  flags: READ,
  summary: "List schedules (oldest first, paged), each with its next due time, last firing and health.",
  input: scheduleListInput,
  output: scheduleListOutput,
  example: { limit: 20 },
  handle: "schedule.list",
  handler: (args, { services }) => services.schedules.list(args),
});

export const scheduleUpdateOp = defineOp({
  name: "schedule_update",
  group: "schedule",
  flags: { readOnly: false, destructive: true, idempotent: true, openWorld: true },
  summary: "Change a schedule's fields at its current version (expectedVersion); a new `when` counts from now.",
  notes:
    "A stale `expectedVersion` is `version_conflict` (`details.currentVersion`) and nothing changes. `jitter`/`deadline` null removes them; `expect` null restores the action's default. Firings already recorded keep what they were.",
  input: scheduleUpdateInput,
  output: scheduleSchema,
  example: {
    scheduleId: EXAMPLE_ID,
    expectedVersion: 1,
    when: { cron: "0 9 * * mon-fri", timezone: "America/New_York" },
  },
  errors: ["not_found", "version_conflict"],
  handle: "schedule.update",
  handler: (args, { services }) => services.schedules.update(args),
});

export const schedulePauseOp = defineOp({
  name: "schedule_pause",
  group: "schedule",
  flags: { ...WRITE, idempotent: true },
  summary: "Pause a schedule on every node (within a second): no firing until resumed. Running work goes on.",
  input: scheduleRefInput,
  output: scheduleSchema,
  example: { scheduleId: EXAMPLE_ID },
  errors: ["not_found"],
  handle: "schedule.pause",
  handler: (args, { services }) => services.schedules.pause(args.scheduleId),
});

export const scheduleResumeOp = defineOp({
  name: "schedule_resume",
  group: "schedule",
  flags: { ...WRITE, idempotent: true },
  summary: "Resume a paused schedule; the due times that passed while paused follow its `missed` policy.",
  input: scheduleRefInput,
  output: scheduleSchema,
  example: { scheduleId: EXAMPLE_ID },
  errors: ["not_found"],
  handle: "schedule.resume",
  handler: (args, { services }) => services.schedules.resume(args.scheduleId),
});

export const scheduleDeleteOp = defineOp({
  name: "schedule_delete",
  group: "schedule",
  flags: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  summary: "Delete a schedule and its firing history on every node; its bash stops, tasks it started go on.",
  input: scheduleRefInput,
  output: z.object({ deleted: z.boolean().describe("False when there was no such schedule") }),
  example: { scheduleId: EXAMPLE_ID },
  handle: "schedule.delete",
  handler: (args, { services }) => services.schedules.delete(args.scheduleId),
});

export const scheduleTriggerOp = defineOp({
  name: "schedule_trigger",
  group: "schedule",
  flags: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  summary: "Fire a schedule once now, outside its timetable (kind trigger); returns the firing.",
  notes:
    "The firing waits (pending) while an earlier firing of the schedule still runs, then starts. It works on a paused schedule too. Follow it with schedule_firings or the `schedules` bus.",
  input: scheduleRefInput,
  output: firingSchema,
  example: { scheduleId: EXAMPLE_ID },
  errors: ["not_found"],
  handle: "schedule.trigger",
  handler: (args, { services }) => services.schedules.trigger(args.scheduleId),
});

export const scheduleFiringsOp = defineOp({
  name: "schedule_firings",
  group: "schedule",
  flags: READ,
  summary: "A schedule's firings, newest due time first, paged: outcome, reason, task or bash result, times.",
  notes:
    "Outcomes: `pending` (waiting to start: jitter, or queued), `running`, `ok`, `failed` (with the reason: the postcondition not met, `interrupted` when its process or node died, cancelled by the next due time), `skipped` (overlap), `missed` (no node ran at its due time, or paused), `overdue` (past its deadline, still running; `overdueAt` stays once it ends). Pass `nextCursor` as `before` for the next page.",
  input: scheduleFiringsInput,
  output: scheduleFiringsOutput,
  example: { scheduleId: EXAMPLE_ID, limit: 20 },
  errors: ["not_found"],
  handle: "schedule.firings",
  handler: (args, { services }) => services.schedules.firings(args),
});

/** Schedule operations. */
export const scheduleOps = [
  scheduleCreateOp,
  scheduleGetOp,
  scheduleListOp,
  scheduleUpdateOp,
  schedulePauseOp,
  scheduleResumeOp,
  scheduleDeleteOp,
  scheduleTriggerOp,
  scheduleFiringsOp,
] as const;
