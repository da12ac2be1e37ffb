/** Small shared pieces: status badges, error notes, collapsible text, JSON blocks. */
import type { ComponentChildren } from "preact";
import { pretty } from "../format.js";

/** A task status as a coloured badge. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge s-${status}`}>{status}</span>;
}

/** An operation's error (a ClawError) or any other failure. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as { code?: string; message?: string };
  return (
    <p class="error" role="alert">
      {e.code ? <code>{e.code}</code> : null} {e.message ?? String(error)}
    </p>
  );
}

/** Text that is shown whole when short, collapsed behind a summary when long. */
export function LongText({ text, label, lines = 12 }: { text: string; label: string; lines?: number }) {
  const n = text.split("\n").length;
  if (n <= lines && text.length <= 2000) return <pre class="out">{text}</pre>;
  return (
    <details class="long">
      <summary>
        {label}: {n} lines, {text.length} characters
      </summary>
      <pre class="out">{text}</pre>
    </details>
  );
}

/** A value as indented JSON. */
export function Json({ value }: { value: unknown }) {
  return <pre class="json">{pretty(value)}</pre>;
}

/** A labelled section. */
export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card">
      <h3>{title}</h3>
      {children}
    </section>
  );
}
