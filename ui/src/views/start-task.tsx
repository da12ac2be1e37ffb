/** The start form: run_task with a prompt, an optional session key and title; opens the new task. */
import { useState } from "preact/hooks";
import { useConnection } from "../connection.js";
import { ErrorNote } from "../parts/common.js";
import { href } from "../route.js";

/** The form. */
export function StartTask() {
  const { claw } = useConnection();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  if (!open)
    return (
      <button type="button" class="primary" onClick={() => setOpen(true)}>
        Start a task
      </button>
    );
  const submit = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    if (!text("prompt")) return setError(new Error("a task needs a prompt"));
    setBusy(true);
    setError(undefined);
    try {
      const r = await claw.call("run_task", {
        prompt: text("prompt"),
        ...(text("sessionKey") ? { sessionKey: text("sessionKey") } : {}),
        ...(text("title") ? { title: text("title") } : {}),
        // A double click or a retry after a lost answer starts one task, not two.
        idempotencyKey: String(data.get("idem")),
      });
      location.hash = href("task", r.taskId);
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
      <h3>Start a task</h3>
      <input type="hidden" name="idem" value={`ui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`} />
      <label>
        Prompt
        <textarea name="prompt" rows={3} required />
      </label>
      <label>
        Session key <input name="sessionKey" placeholder="new session" />
      </label>
      <label>
        Title <input name="title" placeholder="from the prompt" />
      </label>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? "Starting…" : "Run task"}
      </button>{" "}
      <button type="button" onClick={() => setOpen(false)}>
        Close
      </button>
    </form>
  );
}
