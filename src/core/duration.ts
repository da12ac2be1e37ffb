/** Timeouts: seconds as a number, or a Go duration string ("1.5s", "2m", "1h30m", "300ms"). */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration (as `time.ParseDuration` does: a sequence of decimal numbers with units,
 * optionally signed) into milliseconds. Returns undefined when the text is not one.
 */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([+-]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/.exec(text.trim());
  if (!m) return text.trim() === "0" ? 0 : undefined;
  let total = 0;
  for (const part of m[2]!.matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number.parseFloat(part[1]!) * UNIT_MS[part[2]!]!;
  }
  return m[1] === "-" ? -total : total;
}

/** A timeout argument in milliseconds, or an explanation of why it is not valid. */
export function timeoutToMs(value: number | string): number | string {
  let ms: number | undefined;
  if (typeof value === "number") ms = value * 1000;
  else if (/^\s*\d+(\.\d+)?\s*$/.test(value)) ms = Number.parseFloat(value) * 1000;
  else ms = parseGoDuration(value);
  if (ms === undefined || !Number.isFinite(ms))
    return `"${value}" is not a number of seconds or a Go duration such as "1.5s", "2m", "1h30m", "300ms"`;
  if (ms <= 0) return "timeout must be positive";
  if (ms > 2_147_483_647) return "timeout must be at most 24 days";
  return ms;
}
