/**
 * Sessions: newest first, 50 per page (the cursor gives more), with whether each runs now; the
 * first page stays current by itself (task changes and a reload every few seconds).
 */
import { useEffect, useState } from "preact/hooks";
import type { OpOutput } from "../../../src/client.js";
import { useConnection } from "../connection.js";
import { clock } from "../format.js";
import { ErrorNote } from "../parts/common.js";
import { useLiveReload } from "../parts/use-live-reload.js";
import { href } from "../route.js";

type SessionRow = OpOutput<"list_sessions">["sessions"][number];

/** The sessions view. */
export function SessionsView() {
  const { claw } = useConnection();
  const [rows, setRows] = useState<SessionRow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [stamp, setStamp] = useState(0);

  const page = (after?: string) =>
    claw.call("list_sessions", { limit: 50, ...(after ? { cursor: after } : {}) }).then((r) => {
      setRows((rs) => (after ? [...rs, ...r.sessions] : r.sessions));
      setCursor(r.nextCursor);
      setError(undefined);
    }, setError);
  useEffect(() => void page(), [claw, stamp]);
  // Only while the first page is all that is shown: a reader paging through older ones keeps them.
  useLiveReload(() => {
    if (rows.length <= 50) void page();
  });

  return (
    <div>
      <h2>
        Sessions{" "}
        <button type="button" onClick={() => setStamp(stamp + 1)}>
          Refresh
        </button>
      </h2>
      <ErrorNote error={error} />
      <table class="list sessions">
        <thead>
          <tr>
            <th>session key</th>
            <th>name</th>
            <th>model</th>
            <th>bus</th>
            <th>running</th>
            <th>updated</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.sessionId} data-session={s.sessionId}>
              <td>
                <a href={href("session", s.sessionId)}>{s.sessionKey}</a>
              </td>
              <td>{s.name ?? "—"}</td>
              <td>
                {s.model} <span class="sub">via {s.provider}</span>
              </td>
              <td>
                <a href={href("bus", s.bus)}>{s.bus}</a>
              </td>
              <td>{s.isRunning ? <span class="badge s-in_progress">running</span> : "idle"}</td>
              <td>{clock(s.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 ? <p class="empty">No sessions yet: start a task or call start_session.</p> : null}
      {cursor ? (
        <button type="button" onClick={() => page(cursor)}>
          More sessions
        </button>
      ) : null}
    </div>
  );
}
