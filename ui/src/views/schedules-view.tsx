/**
 * Schedules: every schedule with its timetable, next due time, last outcome and health, live
 * from the `schedules` bus; pause/resume and trigger on each row; a form that creates one.
 */
import { useEffect, useState } from "preact/hooks";
import type { OpOutput } from "../../../src/client.js";
import { useConnection } from "../connection.js";
import { clock } from "../format.js";
import { ErrorNote } from "../parts/common.js";
import { href } from "../route.js";
import { CreateSchedule } from "./schedule-create.js";
import { useScheduleEvents } from "./schedule-feed.js";

/** A schedule as schedule_list returns it. */
export type ScheduleInfo = OpOutput<"schedule_get">;

/** The timetable of a schedule in a few words. */
export function whenText(when: ScheduleInfo["when"]): string {
  if ("cron" in when) return `cron ${when.cron}${when.timezone ? ` (${when.timezone})` : " (UTC)"}`;
  if ("every" in when) return `every ${when.every}`;
  return `once at ${new Date(when.at).toLocaleString()}`;
}

/** What a schedule's firings do, in a few words. */
export function actionText(action: ScheduleInfo["action"]): string {
  if ("runTask" in action) return `task: ${action.runTask.prompt.slice(0, 60)}`;
  if ("bash" in action) return `bash: ${action.bash.script.slice(0, 60)}`;
  return `out to ${action.out.bus ?? "thebus"}`;
}

/** Health and outcomes as coloured badges. */
export function Badge({ value }: { value: string }) {
  return <span class={`badge h-${value}`}>{value}</span>;
}

/** Pause/resume and trigger buttons for one schedule; `onDone` after each. */
export function ScheduleActions({ s, onDone }: { s: ScheduleInfo; onDone: (error?: unknown) => void }) {
  const { claw } = useConnection();
  const act = (op: "schedule_pause" | "schedule_resume" | "schedule_trigger") =>
    claw.call(op, { scheduleId: s.scheduleId }).then(() => onDone(), onDone);
  return (
    <span class="actions">
      {s.enabled ? (
        <button type="button" onClick={() => act("schedule_pause")}>
          Pause
        </button>
      ) : (
        <button type="button" onClick={() => act("schedule_resume")}>
          Resume
        </button>
      )}{" "}
      <button type="button" onClick={() => act("schedule_trigger")}>
        Trigger now
      </button>
    </span>
  );
}

/** The schedules view. */
export function SchedulesView() {
  const { claw } = useConnection();
  const [schedules, setSchedules] = useState<ScheduleInfo[]>();
  const [error, setError] = useState<unknown>();
  const [stamp, setStamp] = useState(0);
  useEffect(() => {
    claw.call("schedule_list", { limit: 1000 }).then((r) => setSchedules(r.schedules), setError);
  }, [claw, stamp]);
  useScheduleEvents(() => setStamp((n) => n + 1));
  const done = (e?: unknown) => {
    setError(e);
    setStamp((n) => n + 1);
  };
  return (
    <div>
      <h2>Schedules</h2>
      <CreateSchedule onCreated={() => setStamp((n) => n + 1)} />
      <ErrorNote error={error} />
      <table class="list schedules">
        <thead>
          <tr>
            <th>name</th>
            <th>when</th>
            <th>does</th>
            <th>next due</th>
            <th>last outcome</th>
            <th>health</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(schedules ?? []).map((s) => (
            <tr key={s.scheduleId} data-schedule={s.scheduleId}>
              <td>
                <a href={href("schedule", s.scheduleId)}>{s.name}</a>
              </td>
              <td>{whenText(s.when)}</td>
              <td>{actionText(s.action)}</td>
              <td data-field="next">{s.enabled ? (s.nextFireAt ? clock(Date.parse(s.nextFireAt)) : "—") : "paused"}</td>
              <td data-field="outcome">{s.lastFiring ? <Badge value={s.lastFiring.outcome} /> : "—"}</td>
              <td data-field="health">
                <Badge value={s.health.status} />
              </td>
              <td>
                <ScheduleActions s={s} onDone={done} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {schedules && schedules.length === 0 ? <p class="empty">No schedule yet.</p> : null}
    </div>
  );
}
