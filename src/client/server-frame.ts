/**
 * Checks a frame from the server against the shapes of `serverFrameSchema` (core/wire.ts) by
 * hand. The client runs in browsers: zod there would be a bare `zod` import a page cannot
 * resolve without a bundler, and zod probes `new Function` when it builds an object schema,
 * which a strict Content-Security-Policy reports as a violation (the dashboard's does). The
 * type is the schema's; test/client/server-frames.test.ts checks both agree on every case.
 */
import type { ServerFrame } from "../core/wire.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown) => typeof v === "string" || typeof v === "number" || v === null;

/** The frame, or why it is malformed. */
export function checkServerFrame(value: unknown): { frame: ServerFrame } | { error: string } {
  if (!isObject(value)) return { error: "a frame is a JSON object" };
  if ("event" in value) {
    if (typeof value.event !== "string") return { error: "event: expected a string" };
    if (value.event !== "bus") return { frame: value as ServerFrame };
    if (typeof value.sub !== "string") return { error: "sub: expected a string" };
    if (typeof value.bus !== "string") return { error: "bus: expected a string" };
    if (!Number.isInteger(value.seq)) return { error: "seq: expected an integer" };
    if (typeof value.ts !== "number") return { error: "ts: expected a number" };
    return { frame: value as ServerFrame };
  }
  if (!isId(value.id)) return { error: "id: expected a string, a number or null" };
  if (value.ok === true) return "result" in value ? { frame: value as ServerFrame } : { error: "result: missing" };
  if (value.ok !== false) return { error: "ok: expected true or false" };
  const e = value.error;
  if (!isObject(e)) return { error: "error: expected an object" };
  if (typeof e.code !== "string") return { error: "error.code: expected a string" };
  if (typeof e.message !== "string") return { error: "error.message: expected a string" };
  if (typeof e.retryable !== "boolean") return { error: "error.retryable: expected a boolean" };
  if (e.details !== undefined && !isObject(e.details)) return { error: "error.details: expected an object" };
  return { frame: value as ServerFrame };
}
