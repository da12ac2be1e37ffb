/**
 * Tasks: counts per status, filters (status, session, project), the list live from the `tasks`
 * bus, and the start form. Pages of 100 rows ("more" follows the cursor), so a thousand tasks
 * never mean a thousand rows at once.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { TASK_STATUSES } from "../../../src/client.js";
import { useConnection, useNow, useTaskEvents } from "../connection.js";
import { ago, duration } from "../format.js";
import { ErrorNote, StatusBadge } from "../parts/common.js";
import { href, replaceQuery } from "../route.js";
import { StartTask } from "./start-task.js";
import { applyEvents, listArgs, matches, type TaskFilters, type TaskRow } from "./task-rows.js";

const PAGE = 100;
const STATUSES = TASK_STATUSES;

/** Elapsed time of a task: to its end, or to now while it runs. */
export function elapsedOf(t: { createdAt: number; endedAt: number | null; elapsedMs: number }, now: number): number {
  return t.endedAt != null ? t.endedAt - t.createdAt : Math.max(t.elapsedMs, now - t.createdAt);
}

function Row({ t, now }: { t: TaskRow; now: number }) {
  return (
    <tr data-task={t.taskId} data-status={t.status}>
      <td>
        <StatusBadge status={t.status} />
      </td>
      <td>
        <a href={href("task", t.taskId)}>{t.title || t.taskId}</a>
        <div class="sub">{t.latestUpdate?.text ?? ""}</div>
      </td>
      <td>{t.phase}</td>
      <td>{t.sessionKey ?? "—"}</td>
      <td class="num elapsed">{duration(elapsedOf(t, now))}</td>
      <td class="num age">{t.latestUpdate ? ago(t.latestUpdate.at, now) : "—"}</td>
    </tr>
  );
}

/** The tasks view. */
export function TasksView({ query }: { query: URLSearchParams }) {
  const { claw } = useConnection();
  const filters: TaskFilters = {
    status: query.get("status") ?? undefined,
    sessionKey: query.get("session") ?? undefined,
    project: query.get("project") ?? undefined,
  };
  const key = JSON.stringify(filters);
  const [rows, setRows] = useState<TaskRow[]>([]);
  const [counts, setCounts] = useState<Record<string, number>>({});
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>();
  const now = useNow();
  const rowsRef = useRef(rows);
  // Tasks fetched for an event and found not to belong on the loaded pages.
  const beyond = useRef(new Set<string>());
  const countsTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    let gone = false;
    setLoaded(false);
    beyond.current.clear();
    claw.call("list_tasks", listArgs(filters, PAGE)).then(
      (r) => {
        if (gone) return;
        setRows(r.tasks);
        setCounts(r.counts);
        setCursor(r.nextCursor);
        setLoaded(true);
        setError(undefined);
      },
      (e) => !gone && setError(e),
    );
    return () => {
      gone = true;
    };
  }, [claw, key]);

  rowsRef.current = rows;
  useTaskEvents(
    (events) => {
      const { rows: next, unknown } = applyEvents(rowsRef.current, events);
      rowsRef.current = next.filter((r) => matches(filters, r));
      setRows(rowsRef.current);
      // A task the list has not seen (new, or beyond the loaded pages): fetch it if it belongs here.
      for (const id of unknown) {
        if (beyond.current.has(id) || !matches(filters, events.findLast((x) => x.taskId === id)!)) continue;
        beyond.current.add(id); // one fetch per task, however many changes it has
        claw.call("get_task", { taskId: id }).then((t) => {
          if (!matches(filters, t) || rowsRef.current.some((r) => r.taskId === t.taskId)) return;
          const oldest = rowsRef.current.at(-1);
          if (cursor && oldest && t.createdAt < oldest.createdAt) return; // on a page not loaded yet
          beyond.current.delete(id);
          const { timeline: _t, receipts: _r, prompt: _p, ...row } = t;
          rowsRef.current = [{ ...row, summaryTruncated: false }, ...rowsRef.current].sort(
            (a, b) => b.createdAt - a.createdAt,
          );
          setRows(rowsRef.current);
        }, setError);
      }
      // Counts come from the server (the list holds only the loaded pages): at most 4 reads a
      // second, however busy the bus (a throttle, so a steady stream of changes cannot starve it).
      if (countsTimer.current !== undefined) return;
      countsTimer.current = setTimeout(() => {
        countsTimer.current = undefined;
        claw
          .call("list_tasks", listArgs({ ...filters, status: undefined }, 1))
          .then((r) => setCounts(r.counts), setError);
      }, 250);
    },
    [key, cursor],
  );

  const more = () =>
    cursor &&
    claw.call("list_tasks", listArgs(filters, PAGE, cursor)).then((r) => {
      setRows((rs) => [...rs, ...r.tasks.filter((t) => !rs.some((x) => x.taskId === t.taskId))]);
      setCursor(r.nextCursor);
    }, setError);
  const setFilter = (name: string, value: string | undefined) =>
    replaceQuery(["tasks"], {
      status: filters.status,
      session: filters.sessionKey,
      project: filters.project,
      [name]: value || undefined,
    });
  const total = Object.values(counts).reduce((a, b) => a + b, 0);

  return (
    <div>
      <div class="counts" role="toolbar" aria-label="tasks per status">
        <button
          type="button"
          class={!filters.status ? "chip on" : "chip"}
          onClick={() => setFilter("status", undefined)}
        >
          all <b data-count="all">{total}</b>
        </button>
        {STATUSES.map((s) => (
          <button
            type="button"
            key={s}
            class={filters.status === s ? `chip on s-${s}` : `chip s-${s}`}
            onClick={() => setFilter("status", filters.status === s ? undefined : s)}
          >
            {s} <b data-count={s}>{counts[s] ?? 0}</b>
          </button>
        ))}
      </div>
      <div class="filters">
        <label>
          session{" "}
          <input
            name="session"
            value={filters.sessionKey ?? ""}
            onChange={(e) => setFilter("session", (e.target as HTMLInputElement).value.trim())}
          />
        </label>
        <label>
          project{" "}
          <input
            name="project"
            value={filters.project ?? ""}
            onChange={(e) => setFilter("project", (e.target as HTMLInputElement).value.trim())}
          />
        </label>
      </div>
      <StartTask />
      <ErrorNote error={error} />
      <table class="list tasks">
        <thead>
          <tr>
            <th>status</th>
            <th>task</th>
            <th>phase</th>
            <th>session</th>
            <th>elapsed</th>
            <th>last update</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <Row key={t.taskId} t={t} now={now} />
          ))}
        </tbody>
      </table>
      {loaded && rows.length === 0 ? (
        <p class="empty">No tasks{filters.status ? ` with status ${filters.status}` : ""}.</p>
      ) : null}
      {cursor ? (
        <button type="button" onClick={more}>
          More tasks ({rows.length} shown)
        </button>
      ) : null}
    </div>
  );
}
