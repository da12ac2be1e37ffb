/**
 * A bus payload as it is stored: its JSON text and that text's UTF-8 size, checked against the
 * depth and size limits. Every publisher goes through here (out, bash line and exit events,
 * session and run events), so no event past a limit is ever stored.
 */
import { ClawError } from "../core/errors.js";
import { jsonDepth } from "../core/json-depth.js";
import { jsonBytes } from "./page.js";

/**
 * Deepest payload a bus accepts (arrays and objects, `[]` is 1). JSON.stringify recurses and
 * overflows V8's stack near 4 000 levels (fewer when called deep in a stack), so an event much
 * deeper than this could be stored yet never answered; clients' parsers give up far earlier
 * (Ruby's at 100, serde_json's at 128 for the whole message, which wraps the payload in ~6 more
 * levels). 100 leaves every reader room; real events nest a few levels.
 */
export const MAX_PAYLOAD_DEPTH = 100;

/** A payload encoded once: its JSON text, and its size in UTF-8 bytes within the limit. */
export interface EncodedPayload {
  json: string;
  size: number;
}

/** A payload's JSON text; throws `invalid_args` for what has none or nests too deep. */
export function stringifyPayload(payload: unknown): string {
  const depth = jsonDepth(payload, MAX_PAYLOAD_DEPTH);
  if (depth > MAX_PAYLOAD_DEPTH) {
    const message = `payload is nested more than ${MAX_PAYLOAD_DEPTH} levels deep`;
    throw new ClawError("invalid_args", `${message}; the limit is ${MAX_PAYLOAD_DEPTH}`, {
      issues: [{ path: "payload", message }],
      limit: MAX_PAYLOAD_DEPTH,
    });
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (err) {
    throw new ClawError("invalid_args", `payload is not JSON-serialisable: ${(err as Error).message}`, {
      issues: [{ path: "payload", message: "not JSON-serialisable" }],
    });
  }
  if (json === undefined) {
    throw new ClawError("invalid_args", "payload is required (any JSON value)", {
      issues: [{ path: "payload", message: "required" }],
    });
  }
  return json;
}

/** UTF-8 bytes of a payload's JSON text; throws `payload_too_large` past `limit`. */
export function payloadSize(json: string, limit: number): number {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short texts need no count against the limit.
  const bytes = json.length * 3 <= limit ? -1 : jsonBytes(json);
  if (bytes > limit) {
    throw new ClawError("payload_too_large", `payload is ${bytes} bytes; the limit is ${limit}`, { limit });
  }
  return bytes >= 0 ? bytes : jsonBytes(json);
}

/** Encodes and sizes a payload; throws as `stringifyPayload` and `payloadSize` do. */
export function encodePayload(payload: unknown, limit: number): EncodedPayload {
  const json = stringifyPayload(payload);
  return { json, size: payloadSize(json, limit) };
}
