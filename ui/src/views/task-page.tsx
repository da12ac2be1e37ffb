/**
 * One task: status, phase, elapsed time and the age of its latest update (both tick), the latest
 * update, timeline, summary, handoff, receipts, error with its suggested recovery, and cancel.
 * It re-reads the task (get_task) when the `tasks` bus says it changed.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import type { Task } from "../../../src/client.js";
import { useConnection, useNow, useTaskEvents } from "../connection.js";
import { ago, clock, duration } from "../format.js";
import { ErrorNote, LongText, Section, StatusBadge } from "../parts/common.js";
import { href } from "../route.js";
import { PhaseText } from "./awaiting-approval.js";
import { elapsedOf } from "./tasks-view.js";

const TERMINAL = new Set(["completed", "completed_no_summary", "error", "cancelled", "done"]);

function Facts({ task, now }: { task: Task; now: number }) {
  return (
    <dl class="facts">
      <dt>status</dt>
      <dd data-field="status">
        <StatusBadge status={task.status} />
      </dd>
      <dt>phase</dt>
      <dd data-field="phase">
        <PhaseText phase={task.phase} taskId={task.taskId} />
      </dd>
      <dt>elapsed</dt>
      <dd data-field="elapsed">{duration(elapsedOf(task, now))}</dd>
      <dt>last update</dt>
      <dd data-field="age">{task.latestUpdate ? ago(task.latestUpdate.at, now) : "none yet"}</dd>
      <dt>session</dt>
      <dd>{task.sessionId ? <a href={href("session", task.sessionId)}>{task.sessionKey}</a> : "—"}</dd>
      <dt>project</dt>
      <dd>{task.project}</dd>
      <dt>kind</dt>
      <dd>{task.kind}</dd>
      <dt>version</dt>
      <dd>{task.version}</dd>
      <dt>created</dt>
      <dd>{clock(task.createdAt)}</dd>
      <dt>ended</dt>
      <dd>{clock(task.endedAt)}</dd>
      <dt>polls</dt>
      <dd>{task.pollCount}</dd>
    </dl>
  );
}

/** The task page. */
export function TaskPage({ taskId }: { taskId: string }) {
  const { claw } = useConnection();
  const [task, setTask] = useState<Task>();
  const [error, setError] = useState<unknown>();
  const [cancelling, setCancelling] = useState(false);
  const now = useNow();
  const version = useRef(0);

  const load = () =>
    claw.call("get_task", { taskId, include: ["timeline", "receipts", "prompt"] }).then((t) => {
      // Answers may cross: never step back to an older version.
      if (t.version < version.current) return;
      version.current = t.version;
      setTask(t);
      setError(undefined);
    }, setError);
  useEffect(() => {
    version.current = 0;
    setTask(undefined);
    void load();
  }, [claw, taskId]);
  useTaskEvents(
    (events) => {
      if (events.some((e) => e.taskId === taskId && e.version > version.current)) void load();
    },
    [taskId],
  );

  if (!task) return error ? <ErrorNote error={error} /> : <p class="boot">Loading task…</p>;
  const cancel = async () => {
    setCancelling(true);
    try {
      const t = await claw.call("cancel_task", { taskId });
      if (t.version >= version.current) {
        version.current = t.version;
        setTask({ ...task, ...t });
      }
    } catch (e) {
      setError(e);
    } finally {
      setCancelling(false);
    }
  };
  return (
    <div class="task-page" data-task={task.taskId}>
      <p>
        <a href={href("tasks")}>← tasks</a>
      </p>
      <h2>{task.title || task.taskId}</h2>
      <p class="sub">
        <code>{task.taskId}</code>
      </p>
      {TERMINAL.has(task.status) ? null : (
        <button type="button" class="danger" onClick={cancel} disabled={cancelling}>
          {cancelling ? "Cancelling…" : "Cancel task"}
        </button>
      )}
      <ErrorNote error={error} />
      <Facts task={task} now={now} />
      <Section title="Latest update">
        <p data-field="latest">{task.latestUpdate?.text ?? "—"}</p>
      </Section>
      {task.error ? (
        <Section title="Error">
          <p class="error" data-field="error">
            <code>{task.error.code}</code> ({task.error.category}) {task.error.message}
          </p>
          <p data-field="recovery">
            <b>Suggested recovery:</b> {task.error.suggestedRecovery}
          </p>
        </Section>
      ) : null}
      {task.summary != null ? (
        <Section title="Summary">
          <LongText text={task.summary} label="summary" lines={30} />
        </Section>
      ) : null}
      {task.handoff ? (
        <Section title="Handoff">
          <dl class="facts">
            <dt>completed</dt>
            <dd>{task.handoff.completed || "—"}</dd>
            <dt>next</dt>
            <dd>{task.handoff.next || "—"}</dd>
            <dt>blockers</dt>
            <dd>{task.handoff.blockers || "—"}</dd>
          </dl>
        </Section>
      ) : null}
      {task.prompt ? (
        <Section title="Prompt">
          <LongText text={task.prompt} label="prompt" />
        </Section>
      ) : null}
      <Section title={`Timeline (${task.timeline?.length ?? 0})`}>
        <ol class="timeline">
          {(task.timeline ?? []).map((e) => (
            <li key={`${e.version}-${e.at}`}>
              <span class="when">{clock(e.at)}</span> v{e.version} <StatusBadge status={e.status} /> {e.phase} —{" "}
              {e.text}
            </li>
          ))}
        </ol>
      </Section>
      <Section title={`Receipts (${task.receipts?.length ?? 0})`}>
        {(task.receipts ?? []).map((r) => (
          <dl class="facts receipt" key={r.sessionRef}>
            <dt>worker</dt>
            <dd>{r.worker}</dd>
            <dt>work</dt>
            <dd>{r.work}</dd>
            <dt>tests</dt>
            <dd>{r.tests || "—"}</dd>
            <dt>next</dt>
            <dd>{r.next || "—"}</dd>
            <dt>blockers</dt>
            <dd>{r.blockers || "—"}</dd>
            <dt>checkpoint</dt>
            <dd>{r.gitCheckpoint ?? "—"}</dd>
            <dt>session ref</dt>
            <dd>
              <code>{r.sessionRef}</code> · {clock(r.createdAt)}
            </dd>
          </dl>
        ))}
      </Section>
    </div>
  );
}
