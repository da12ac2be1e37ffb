/**
 * The dashboard shell: without a token it shows only the token box (and no data); with one it
 * connects through the public client and shows the tasks, sessions and buses views.
 */
import { useEffect, useState } from "preact/hooks";
import { type Connection, ConnectionContext, openConnection } from "./connection.js";
import { ErrorNote } from "./parts/common.js";
import { href, useRoute } from "./route.js";
import { forgetToken, saveToken, takeToken } from "./token.js";
import { ApprovalsView } from "./views/approvals-view.js";
import { BusTail } from "./views/bus-tail.js";
import { BusesView } from "./views/buses-view.js";
import { SchedulePage } from "./views/schedule-page.js";
import { SchedulesView } from "./views/schedules-view.js";
import { SessionPage } from "./views/session-page.js";
import { SessionsView } from "./views/sessions-view.js";
import { TaskPage } from "./views/task-page.js";
import { TasksView } from "./views/tasks-view.js";

type State =
  | { kind: "no-token"; refused?: unknown }
  | { kind: "connecting" }
  | { kind: "connected"; conn: Connection & { close(): Promise<void> } }
  | { kind: "failed"; error: unknown };

function TokenBox({ refused, onToken }: { refused?: unknown; onToken: (t: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <form
      class="card token-box"
      onSubmit={(e) => {
        e.preventDefault(); // the token goes to sessionStorage, never into a URL
        if (value.trim()) onToken(value.trim());
      }}
    >
      <h2>Server token</h2>
      <p>
        This server needs its token. <code>tsclaw serve</code> printed an address with it (<code>/ui#token=…</code>) on
        its first start; otherwise it is in the token file beside the database (<code>claw.db.token</code>).
      </p>
      {refused ? <ErrorNote error={refused} /> : null}
      <label>
        Token{" "}
        <input
          name="token"
          type="password"
          autocomplete="off"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
      </label>{" "}
      <button type="submit">Connect</button>
    </form>
  );
}

function Views() {
  const route = useRoute();
  const [view, id] = route.parts;
  if (view === "task" && id) return <TaskPage taskId={id} />;
  if (view === "sessions") return <SessionsView />;
  if (view === "session" && id) return <SessionPage sessionId={id} />;
  if (view === "buses") return <BusesView />;
  if (view === "approvals") return <ApprovalsView />;
  if (view === "bus" && id) return <BusTail bus={id} from={route.query.get("from")} />;
  if (view === "schedules") return <SchedulesView />;
  if (view === "schedule" && id) return <SchedulePage scheduleId={id} />;
  return <TasksView query={route.query} />;
}

function Nav({ conn, onForget }: { conn: Connection; onForget: () => void }) {
  const view = useRoute().parts[0];
  const tab = (name: string, label: string, also: string) => (
    <a href={href(name)} class={view === name || view === also ? "on" : ""}>
      {label}
    </a>
  );
  return (
    <header class="top">
      <strong>tsclaw</strong>
      <nav>
        {tab("tasks", "Tasks", "task")}
        {tab("sessions", "Sessions", "session")}
        {tab("buses", "Buses", "bus")}
        {tab("approvals", "Approvals", "approval")}
        {tab("schedules", "Schedules", "schedule")}
      </nav>
      <span class="who" title={`instance ${conn.identity.instance}`}>
        {conn.identity.name} {conn.identity.version} · project {conn.identity.project} · {conn.identity.model}
      </span>
      <button type="button" class="link" onClick={onForget}>
        Forget token
      </button>
    </header>
  );
}

/** The whole page. */
export function App() {
  const [token, setToken] = useState(() => takeToken());
  const [state, setState] = useState<State>(token ? { kind: "connecting" } : { kind: "no-token" });

  useEffect(() => {
    if (!token) return;
    let cancelled = false;
    let conn: (Connection & { close(): Promise<void> }) | undefined;
    setState({ kind: "connecting" });
    openConnection(token).then(
      (c) => {
        conn = c;
        if (cancelled) void c.close();
        else setState({ kind: "connected", conn: c });
      },
      (error: { code?: string }) => {
        if (cancelled) return;
        if (error?.code === "unauthorized") {
          forgetToken(); // a refused token is not kept
          setState({ kind: "no-token", refused: error });
        } else setState({ kind: "failed", error });
      },
    );
    return () => {
      cancelled = true;
      void conn?.close();
    };
  }, [token]);

  const useToken = (t: string) => {
    saveToken(t);
    setToken(t);
  };
  if (state.kind === "no-token") return <TokenBox refused={state.refused} onToken={useToken} />;
  if (state.kind === "connecting") return <p class="boot">Connecting…</p>;
  if (state.kind === "failed")
    return (
      <div class="card">
        <h2>Cannot reach the server</h2>
        <ErrorNote error={state.error} />
        <button type="button" onClick={() => location.reload()}>
          Retry
        </button>
      </div>
    );
  return (
    <ConnectionContext.Provider value={state.conn}>
      <Nav
        conn={state.conn}
        onForget={() => {
          forgetToken();
          setToken(undefined);
          setState({ kind: "no-token" });
        }}
      />
      <main>
        <Views />
      </main>
    </ConnectionContext.Provider>
  );
}
