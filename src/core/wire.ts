/**
 * The wire envelope, identical on every adapter: parsing a frame, building success and failure
 * responses, and encoding a stream's event frames (the one encoder WebSocket, stdio and SSE use).
 * Adapters only move the bytes.
 */
import { z } from "zod";
import { ClawError, toClawError, type WireError } from "./errors.js";
import type { StoredEvent } from "./stored-event.js";

/** A request: `{op, args?, id?}`. */
export const requestSchema = z.object({
  op: z.string().min(1),
  args: z.record(z.string(), z.unknown()).optional(),
  id: z.union([z.string(), z.number()]).optional(),
  /** Names the call so that `cancel_call` can end it (the remote client's AbortSignal). */
  callId: z.string().min(16).max(200).optional(),
});

/** A validated request envelope. */
export type Request = z.infer<typeof requestSchema>;

/** Request id as echoed back (null when the request had none we could read). */
export type RequestId = string | number | null;

/**
 * What a streaming connection (WebSocket) sends a client, each kind as a schema the client
 * validates with: a response envelope, a bus event frame of one of its streams, or a notice
 * (`closing`, before a slow consumer's 4008 close).
 */
export const serverFrameSchema = z.union([
  z.object({
    event: z.literal("bus"),
    sub: z.string(),
    bus: z.string(),
    seq: z.number().int(),
    ts: z.number(),
    payload: z.unknown(),
  }),
  z.object({ event: z.string().refine((e) => e !== "bus") }),
  z.object({ id: z.union([z.string(), z.number(), z.null()]), ok: z.literal(true), result: z.unknown() }),
  z.object({
    id: z.union([z.string(), z.number(), z.null()]),
    ok: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      retryable: z.boolean(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
]);
/** A frame from the server, validated. */
export type ServerFrame = z.infer<typeof serverFrameSchema>;

/** A success envelope. */
export interface OkResponse<R = unknown> {
  id: RequestId;
  ok: true;
  result: R;
}

/** A failure envelope. */
export interface ErrorResponse {
  id: RequestId;
  ok: false;
  error: WireError;
}

/** Any response envelope. */
export type Response<R = unknown> = OkResponse<R> | ErrorResponse;

/** Builds a success envelope. */
export function okResponse<R>(id: RequestId, result: R): OkResponse<R> {
  return { id, ok: true, result };
}

/** Builds a failure envelope from anything thrown. */
export function errorResponse(id: RequestId, err: unknown): ErrorResponse {
  return { id, ok: false, error: toClawError(err).toWire() };
}

/** Reads the id of a request that may be malformed, so its error can still be matched. */
export function idOf(value: unknown): RequestId {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) return id;
  }
  return null;
}

/** Parses JSON text; malformed text is `invalid_json`. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ClawError("invalid_json", `request is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * True for an envelope the schema accepts unchanged: a plain object of only its known fields,
 * each as the schema wants it. Such an envelope is used as it is, without the schema's copy (a
 * third of the cost of a small POST /do); any other value goes through the schema, which also
 * names what is wrong.
 */
function isPlainRequest(value: unknown): value is Request {
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) if (key !== "op" && key !== "args" && key !== "id" && key !== "callId") return false;
  const { op, args, id, callId } = value as Record<string, unknown>;
  if (typeof op !== "string" || op.length === 0) return false;
  if (args !== undefined) {
    if (args === null || typeof args !== "object") return false;
    const proto = Object.getPrototypeOf(args);
    // The schema's record drops an own "__proto__" key; the schema's copy keeps doing that.
    if ((proto !== Object.prototype && proto !== null) || Object.hasOwn(args, "__proto__")) return false;
  }
  if (id !== undefined && typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) return false;
  return callId === undefined || (typeof callId === "string" && callId.length >= 16 && callId.length <= 200);
}

/** Validates an envelope's shape; a wrong shape is `invalid_request`. */
export function parseRequest(value: unknown): Request {
  if (isPlainRequest(value)) return value;
  const r = requestSchema.safeParse(value);
  if (r.success) return r.data;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ClawError("invalid_request", 'a request is a JSON object: {"op": "<name>", "args": {...}, "id": "..."}');
  }
  throw new ClawError(
    "invalid_request",
    `malformed request envelope: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    {
      issues: r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    },
  );
}

const SEPARATOR = /[\u2028\u2029]/;
const SEPARATORS = /[\u2028\u2029]/g;
const escapeSeparator = (c: string) => (c === "\u2028" ? "\\u2028" : "\\u2029");

/** JSON text with raw U+2028/U+2029 escaped, so line-based readers (readline) never split it. */
function escapeSeparators(json: string): string {
  return SEPARATOR.test(json) ? json.replace(SEPARATORS, escapeSeparator) : json;
}

/** Serialises a response as one line of JSON (U+2028/9 escaped so every JS parser is happy). */
export function encodeResponse(response: Response | object): string {
  return escapeSeparators(JSON.stringify(response));
}

/**
 * An event's frame in three parts, the stored payload text in the middle, so a writer can send
 * it without copying the payload into a new string. With `sub` it is the frame of a stream on a
 * connection, `{"event":"bus","sub","bus","seq","ts","payload"}`; without, the event itself,
 * `{"bus","seq","ts","payload"}` (an SSE `data:` line). One line of JSON either way.
 */
export function eventFrameParts(e: StoredEvent, sub?: string): [string, string, string] {
  const head = sub === undefined ? '{"bus":' : `{"event":"bus","sub":${JSON.stringify(sub)},"bus":`;
  return [
    `${head}${JSON.stringify(e.bus)},"seq":${e.seq},"ts":${e.ts},"payload":`,
    escapeSeparators(e.payloadJson),
    "}",
  ];
}

/** An event frame of stream `sub` as one string (WebSocket message, stdio line). */
export function encodeEventFrame(sub: string, e: StoredEvent): string {
  const [head, payload, tail] = eventFrameParts(e, sub);
  return head + payload + tail;
}
