/** Parsers of setting values given as text (a flag or an environment variable); each throws a message naming the setting. */
import { readFileSync } from "node:fs";
import { parseGoDuration } from "../core/duration.js";
import { type ApprovalPolicy, approvalPolicySchema } from "./approval-policy.js";
import { LEASE_RANGE, validLease } from "./lease.js";
import { MAX_MAX_AGE_MS, MIN_MAX_AGE_MS } from "./retention.js";
import { storeKind } from "./store-url.js";

/** A value that cannot be used; `message` names the flag or variable it came from. */
export class SettingError extends Error {
  override name = "SettingError";
}

/** Parses one setting's text; `label` is how the user gave it ("--max-bash" or "CLAW_MAX_BASH"). */
export type Parser<T> = (text: string, label: string) => T;

/** Any non-empty text. */
export const text: Parser<string> = (value, label) => {
  if (value.trim() === "") throw new SettingError(`${label} must not be empty`);
  return value;
};

/** A `--db` value: a SQLite file, :memory:, or a postgres:// URL (another URL scheme is refused). */
export const database: Parser<string> = (value, label) => {
  text(value, label);
  try {
    storeKind(value);
  } catch (err) {
    throw new SettingError(`${label}: ${(err as Error).message.replace(/^--db /, "")}`);
  }
  return value;
};

/** Any text, empty included: the caller judges it (a blank token must name its own error). */
export const anyText: Parser<string> = (value) => value;

/** A switch: the bare flag gives "true"; a variable may say 1/true/yes or 0/false/no. */
export const boolean: Parser<boolean> = (value, label) => {
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new SettingError(`${label} must be true or false, not "${value}"`);
};

/** A positive safe integer. */
export const positiveInt: Parser<number> = (value, label) => {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n <= 0)
    throw new SettingError(`${label} must be a positive integer, not "${value}"`);
  return n;
};

/** A non-negative safe integer. */
export const nonNegativeInt: Parser<number> = (value, label) => {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new SettingError(`${label} must be a non-negative integer, not "${value}"`);
  return Number(value);
};

/** A positive Go duration ("72h", "30m", "1.5s"), in milliseconds. */
export const duration: Parser<number> = (value, label) => {
  const ms = parseGoDuration(value);
  if (ms === undefined || ms <= 0)
    throw new SettingError(`${label} must be a Go duration such as "72h" or "30m", not "${value}"`);
  return ms;
};

/** A Go duration ("30s", "2m") or 0 for never, in milliseconds; at most 24 days (a timer's range). */
export const durationOrNever: Parser<number> = (value, label) => {
  const ms = parseGoDuration(value);
  if (ms === undefined || ms < 0 || ms > 2_147_483_647)
    throw new SettingError(`${label} must be a Go duration such as "30s" or "2m", or 0 for never, not "${value}"`);
  return ms;
};

/** One of a fixed set of words. */
export function oneOf<const T extends string>(choices: readonly T[]): Parser<T> {
  return (value, label) => {
    if (!(choices as readonly string[]).includes(value))
      throw new SettingError(`${label} must be ${choices.join(" or ")}, not "${value}"`);
    return value as T;
  };
}

/** An http(s) URL without a trailing slash. */
export const httpUrl: Parser<string> = (value, label) => {
  if (!/^https?:\/\/[^\s]+$/.test(value))
    throw new SettingError(`${label} must start with http:// or https://, not "${value}"`);
  return value.replace(/\/+$/, "");
};

/** A browser Origin: scheme://host[:port], no path. */
export const origin: Parser<string> = (value, label) => {
  if (!/^https?:\/\/[^/]+$/.test(value))
    throw new SettingError(
      `${label} "${value}" is not an origin like http://localhost:5173 (scheme://host[:port], no path)`,
    );
  return value;
};

/** An IP address (IPv4 dotted, or IPv6), as a socket reports a peer's. */
export const ipAddress: Parser<string> = (value, label) => {
  const v = value.trim().toLowerCase();
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v);
  const ok = v4 ? v4.slice(1).every((n) => Number(n) <= 255) : v.includes(":") && /^[0-9a-f:.]+$/.test(v);
  if (ok) return v;
  throw new SettingError(`${label} "${value}" is not an IP address (e.g. 127.0.0.1 or ::1)`);
};

/** A Go-style listen address: ":8000" → all interfaces, "127.0.0.1:9000", "[::1]:0", "8000". */
export const listenAddress: Parser<{ host?: string; port: number }> = (value, label) => {
  const m = /^(?:\[([^\]]+)\]|([^:]*))?:?(\d+)$/.exec(value.trim());
  if (!m) throw new SettingError(`${label} "${value}" is not [host]:port (e.g. :8000, 127.0.0.1:8000)`);
  const port = Number(m[3]);
  if (port > 65535) throw new SettingError(`${label} "${value}": port ${port} is out of range`);
  return { host: m[1] ?? (m[2] || undefined), port };
};

/** A bus retention age: a Go duration of at least 1 s and at most 100 years, in milliseconds. */
export const retentionAge: Parser<number> = (value, label) => {
  const ms = duration(value, label);
  if (ms < MIN_MAX_AGE_MS || ms > MAX_MAX_AGE_MS)
    throw new SettingError(`${label} must be between 1s and 100 years (e.g. "72h", "30m"), not "${value}"`);
  return ms;
};

/** A node lease: a Go duration from 1s to 1h, in milliseconds. */
export const lease: Parser<number> = (value, label) => {
  const parsed = parseGoDuration(value);
  const ms = parsed === undefined ? Number.NaN : Math.round(parsed);
  if (!validLease(ms))
    throw new SettingError(`${label} must be a Go duration ${LEASE_RANGE} such as "15s" or "1m", not "${value}"`);
  return ms;
};

/**
 * A `--approval` value: `never`, `always`, or `rules:FILE` (a JSON file holding a policy, or
 * just its rules array; see docs/approvals.md).
 */
export const approval: Parser<ApprovalPolicy> = (value, label) => {
  if (value === "never" || value === "always") return { mode: value };
  if (!value.startsWith("rules:"))
    throw new SettingError(`${label} must be never, always or rules:FILE (got "${value}")`);
  const file = value.slice("rules:".length);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new SettingError(`${label}: cannot read ${file} as JSON: ${(err as Error).message}`);
  }
  const policy = approvalPolicySchema.safeParse(Array.isArray(json) ? { mode: "rules", rules: json } : json);
  if (!policy.success)
    throw new SettingError(
      `${label}: ${file} is not an approval policy: ${policy.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    );
  return policy.data;
};
