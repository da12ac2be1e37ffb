/** Small formatting helpers for durations, ages and payloads. */

/** "850 ms", "12 s", "3 min 04 s", "2 h 05 min". */
export function duration(ms: number): string {
  if (ms < 0) ms = 0;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/** "4 s ago" from an epoch-ms time and now (whole seconds, so it visibly ticks). */
export function ago(at: number, now: number): string {
  const s = Math.max(0, Math.floor((now - at) / 1000));
  if (s < 60) return `${s} s ago`;
  return `${duration(now - at)} ago`;
}

/** Local date and time of an epoch-ms value. */
export function clock(at: number | null | undefined): string {
  return at == null ? "—" : new Date(at).toLocaleString();
}

/** One line of JSON, cut to `max` characters. */
export function preview(value: unknown, max = 160): string {
  const s = typeof value === "string" ? value : JSON.stringify(value);
  return s === undefined ? String(value) : s.length > max ? `${s.slice(0, max)}…` : s;
}

/** Indented JSON (strings as they are). */
export function pretty(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
}
