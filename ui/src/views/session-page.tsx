/**
 * One session: its state, the newest 200 messages (earlier ones on demand), the live events it
 * publishes to its bus, a prompt box and abort. New messages are read (get_messages after the
 * last one shown) when the bus says one was written; nothing polls.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { OpOutput } from "../../../src/client.js";
import { useConnection } from "../connection.js";
import { clock, preview } from "../format.js";
import { ErrorNote, Section } from "../parts/common.js";
import { href } from "../route.js";
import { type Message, Messages } from "./messages.js";

type State = OpOutput<"get_state">;
interface LiveEvent {
  seq: number;
  ts: number;
  type: string;
  text: string;
}

const WINDOW = 200;
const LIVE_KEEP = 200;
/** Events after which the stored messages have grown or the run state changed. */
const CHANGES = new Set(["message", "tool_execution_start", "tool_execution_end", "agent_start", "agent_end"]);

/** The session page. */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const { claw } = useConnection();
  const [state, setState] = useState<State>();
  const [messages, setMessages] = useState<Message[]>([]);
  const [live, setLive] = useState<LiveEvent[]>([]);
  // Output of the tool calls still running, by callId, from their tool_output events.
  const [running, setRunning] = useState<Map<string, string>>(new Map());
  const [error, setError] = useState<unknown>();
  const [sending, setSending] = useState(false);
  const last = useRef(0);
  const reading = useRef<Promise<void> | undefined>(undefined);

  // Reads every message after the last one shown; one read at a time, chained.
  const readNew = () => {
    const run = async () => {
      for (;;) {
        const r = await claw.call("get_messages", { session: sessionId, after: last.current, limit: 200 });
        if (r.messages.length) {
          last.current = r.next;
          setMessages((ms) => [...ms, ...r.messages]);
        }
        if (!r.hasMore) break;
      }
    };
    reading.current = (reading.current ?? Promise.resolve()).then(run).catch(setError);
    return reading.current;
  };
  const refreshState = () => claw.call("get_state", { session: sessionId }).then(setState, setError);

  useEffect(() => {
    let stop: (() => Promise<void>) | undefined;
    let gone = false;
    setMessages([]);
    setLive([]);
    setRunning(new Map());
    (async () => {
      const s = await claw.call("get_state", { session: sessionId });
      if (gone) return;
      setState(s);
      // Subscribe first, then read: a message written in between is read once (the cursor dedups).
      stop = claw.bus.subscribe({ bus: s.bus }, (e) => {
        const p = e.payload as { sessionId?: string; type?: string; role?: string; text?: string; name?: string };
        if (!p || p.sessionId !== sessionId) return;
        const type = p.type ?? "event";
        const out = p as { callId?: string; text?: string; truncated?: boolean };
        if (type === "tool_output" && out.callId) {
          const more = `${out.text ?? ""}${out.truncated ? "\n… (the rest is in the result when the command ends)" : ""}`;
          setRunning((m) => new Map(m).set(out.callId!, `${m.get(out.callId!) ?? ""}${more}`));
        }
        setLive((l) => [...l.slice(-(LIVE_KEEP - 1)), { seq: e.seq, ts: e.ts, type, text: preview(e.payload, 200) }]);
        if (CHANGES.has(type)) {
          void readNew();
          if (type === "agent_start" || type === "agent_end") void refreshState();
        }
      });
      last.current = Math.max(0, s.messageCount - WINDOW);
      await readNew();
    })().catch(setError);
    return () => {
      gone = true;
      void stop?.();
    };
  }, [claw, sessionId]);

  const earlier = async () => {
    const first = messages[0]?.seq ?? last.current + 1;
    const after = Math.max(0, first - 1 - WINDOW);
    const r = await claw.call("get_messages", { session: sessionId, after, limit: first - 1 - after });
    setMessages((ms) => [...r.messages, ...ms]);
  };
  const send = async (form: HTMLFormElement) => {
    const text = String(new FormData(form).get("message") ?? "").trim();
    if (!text) return;
    setSending(true);
    setError(undefined);
    form.reset();
    try {
      // While a run is active the message joins it as a follow-up instead of failing session_busy.
      await claw.call("prompt", {
        session: sessionId,
        message: text,
        ...(state?.isRunning ? { behavior: "follow_up" as const } : {}),
      });
    } catch (e) {
      setError(e);
    } finally {
      setSending(false);
      void refreshState();
    }
  };
  const abort = () => claw.call("abort", { session: sessionId }).then(refreshState, setError);

  if (!state) return error ? <ErrorNote error={error} /> : <p class="boot">Loading session…</p>;
  return (
    <div class="session-page" data-session={sessionId}>
      <p>
        <a href={href("sessions")}>← sessions</a>
      </p>
      <h2>{state.name ?? state.sessionKey}</h2>
      <p class="sub">
        <code>{state.sessionId}</code> · key <code>{state.sessionKey}</code> · {state.model} via {state.provider} · bus{" "}
        <a href={href("bus", state.bus)}>{state.bus}</a> · {state.messageCount} messages ·{" "}
        <span data-field="running">{state.isRunning ? "running" : "idle"}</span>
        {state.currentTaskId ? (
          <>
            {" "}
            · task <a href={href("task", state.currentTaskId)}>{state.currentTaskId}</a>
          </>
        ) : null}
      </p>
      <ErrorNote error={error} />
      <div class="split">
        <div>
          {(messages[0]?.seq ?? 1) > 1 ? (
            <button type="button" onClick={() => earlier().catch(setError)}>
              Earlier messages
            </button>
          ) : null}
          <Messages messages={messages} running={running} />
          <form
            class="prompt"
            onSubmit={(e) => {
              e.preventDefault();
              void send(e.currentTarget);
            }}
          >
            <textarea name="message" rows={3} placeholder="Message the agent" />
            <button type="submit" class="primary" disabled={sending && !state.isRunning}>
              {sending ? "Sending…" : state.isRunning ? "Send as follow-up" : "Send"}
            </button>{" "}
            <button type="button" class="danger" onClick={abort} disabled={!state.isRunning && !sending}>
              Abort
            </button>
          </form>
        </div>
        <Section title="Live events">
          <ol class="events live">
            {live.map((e) => (
              <li key={e.seq} title={clock(e.ts)}>
                <span class="seq">#{e.seq}</span> <b>{e.type}</b> <span class="sub">{e.text}</span>
              </li>
            ))}
          </ol>
          {live.length === 0 ? <p class="empty">Nothing since this page opened.</p> : null}
        </Section>
      </div>
    </div>
  );
}
