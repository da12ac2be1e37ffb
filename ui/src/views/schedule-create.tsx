/** The create form: schedule_create with a name, a timetable (cron + timezone, every, at) and an action. */
import { useState } from "preact/hooks";
import { useConnection } from "../connection.js";
import { ErrorNote } from "../parts/common.js";

type Kind = "cron" | "every" | "at";
type ActionKind = "runTask" | "bash" | "out";

/** The form; `onCreated` after a schedule was created. */
export function CreateSchedule({ onCreated }: { onCreated: () => void }) {
  const { claw } = useConnection();
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<Kind>("cron");
  const [actionKind, setActionKind] = useState<ActionKind>("runTask");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  if (!open)
    return (
      <button type="button" class="primary" onClick={() => setOpen(true)}>
        New schedule
      </button>
    );
  const submit = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const when =
      kind === "cron"
        ? { cron: text("cron"), ...(text("timezone") ? { timezone: text("timezone") } : {}) }
        : kind === "every"
          ? { every: text("every") }
          : { at: new Date(text("at")).toISOString() };
    const body = text("body");
    const action =
      actionKind === "runTask"
        ? { runTask: { prompt: body } }
        : actionKind === "bash"
          ? { bash: { script: body } }
          : { out: { bus: text("bus") || undefined, payload: parsePayload(body) } };
    setBusy(true);
    setError(undefined);
    try {
      await claw.call("schedule_create", {
        ...(text("name") ? { name: text("name") } : {}),
        when,
        action,
        ...(text("deadline") ? { deadline: text("deadline") } : {}),
      } as never);
      setOpen(false);
      onCreated();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="card start"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(e.currentTarget);
      }}
    >
      <h3>New schedule</h3>
      <label>
        Name <input name="name" placeholder="the schedule id" />
      </label>
      <label>
        When{" "}
        <select name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}>
          <option value="cron">cron</option>
          <option value="every">every</option>
          <option value="at">once at</option>
        </select>
      </label>
      {kind === "cron" ? (
        <>
          <label>
            Cron <input name="cron" placeholder="*/5 * * * *" required />
          </label>
          <label>
            Timezone <input name="timezone" placeholder="UTC (e.g. Europe/Berlin)" />
          </label>
        </>
      ) : kind === "every" ? (
        <label>
          Every <input name="every" placeholder="15m" required />
        </label>
      ) : (
        <label>
          At <input name="at" type="datetime-local" required />
        </label>
      )}
      <label>
        Does{" "}
        <select
          name="actionKind"
          value={actionKind}
          onChange={(e) => setActionKind((e.target as HTMLSelectElement).value as ActionKind)}
        >
          <option value="runTask">run a task</option>
          <option value="bash">run bash</option>
          <option value="out">publish an event</option>
        </select>
      </label>
      {actionKind === "out" ? (
        <label>
          Bus <input name="bus" placeholder="thebus" />
        </label>
      ) : null}
      <label>
        {actionKind === "runTask" ? "Prompt" : actionKind === "bash" ? "Script" : "Payload (JSON or text)"}
        <textarea name="body" rows={3} required />
      </label>
      <label>
        Deadline <input name="deadline" placeholder="none (e.g. 10m)" />
      </label>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? "Creating…" : "Create"}
      </button>{" "}
      <button type="button" onClick={() => setOpen(false)}>
        Close
      </button>
    </form>
  );
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
