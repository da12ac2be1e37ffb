/** One schedule: its definition, next due time, health, pause/resume and trigger, and its firing history (live). */
import { useEffect, useState } from "preact/hooks";
import type { OpOutput } from "../../../src/client.js";
import { useConnection } from "../connection.js";
import { clock, duration } from "../format.js";
import { ErrorNote, Json, Section } from "../parts/common.js";
import { href } from "../route.js";
import { useScheduleEvents } from "./schedule-feed.js";
import { Badge, ScheduleActions, type ScheduleInfo, whenText } from "./schedules-view.js";

type Firing = OpOutput<"schedule_firings">["firings"][number];

/** The page. */
export function SchedulePage({ scheduleId }: { scheduleId: string }) {
  const { claw } = useConnection();
  const [s, setS] = useState<ScheduleInfo>();
  const [firings, setFirings] = useState<Firing[]>([]);
  const [error, setError] = useState<unknown>();
  const [stamp, setStamp] = useState(0);
  useEffect(() => {
    claw.call("schedule_get", { scheduleId }).then(setS, setError);
    claw.call("schedule_firings", { scheduleId, limit: 100 }).then((r) => setFirings(r.firings), setError);
  }, [claw, scheduleId, stamp]);
  useScheduleEvents(() => setStamp((n) => n + 1), scheduleId);
  if (!s) return <ErrorNote error={error} />;
  return (
    <div>
      <h2>
        {s.name} <Badge value={s.health.status} />{" "}
        <ScheduleActions
          s={s}
          onDone={(e) => {
            setError(e);
            setStamp((n) => n + 1);
          }}
        />
      </h2>
      <ErrorNote error={error} />
      <Section title="Schedule">
        <dl class="facts">
          <dt>when</dt>
          <dd>{whenText(s.when)}</dd>
          <dt>next due</dt>
          <dd data-field="next">
            {s.enabled ? (s.nextFireAt ? clock(Date.parse(s.nextFireAt)) : "— (spent)") : "paused"}
          </dd>
          <dt>policies</dt>
          <dd>
            overlap {s.overlap} · missed {s.missed} (max {s.maxCatchUp}) · jitter {s.jitter ?? "none"} · deadline{" "}
            {s.deadline ?? "none"}
          </dd>
          <dt>health</dt>
          <dd>
            {s.health.status}, last ok {clock(s.health.lastOkAt)}, {s.health.consecutiveFailures} failures in a row
          </dd>
        </dl>
        <details>
          <summary>action and postcondition</summary>
          <Json value={{ action: s.action, expect: s.expect }} />
        </details>
      </Section>
      <Section title="Firings (newest first)">
        <table class="list firings">
          <thead>
            <tr>
              <th>due</th>
              <th>kind</th>
              <th>outcome</th>
              <th>reason</th>
              <th>took</th>
              <th>task / exit</th>
            </tr>
          </thead>
          <tbody>
            {firings.map((f) => (
              <tr key={f.firingAt} data-firing={f.firingAt}>
                <td>{clock(f.firingAt)}</td>
                <td>{f.kind}</td>
                <td data-field="outcome">
                  <Badge value={f.outcome} />
                  {f.overdueAt ? " (was overdue)" : null}
                </td>
                <td>{f.reason ?? ""}</td>
                <td>{f.startedAt && f.endedAt ? duration(f.endedAt - f.startedAt) : ""}</td>
                <td>
                  {f.taskId ? <a href={href("task", f.taskId)}>{f.taskId.slice(0, 13)}</a> : null}
                  {f.result ? `exit ${f.result.exitCode}` : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {firings.length === 0 ? <p class="empty">No firing yet.</p> : null}
      </Section>
    </div>
  );
}
