/**
 * Calls over `POST /do` with fetch. Failures throw the server's ClawError; a network failure is
 * `connection_failed`; an aborted signal cancels the request, and the server, seeing the
 * connection go, abandons the wait or kills the bash of that call.
 */
import { ClawError, type ErrorCode, type WireError } from "../core/errors.js";
import type { RequestId, Response } from "../core/wire.js";

/** The fetch this client needs (the platform's, or one passed in). */
export type FetchLike = (url: string, init: RequestInit) => Promise<globalThis.Response>;

/** Rebuilds the ClawError of an error envelope. */
export function fromWire(e: WireError): ClawError {
  return new ClawError(e.code as ErrorCode, e.message, e.details, e.retryable);
}

/** A ClawError for a call that never got an answer. */
export function unreachable(err: unknown, signal?: AbortSignal): ClawError {
  if (signal?.aborted) return new ClawError("cancelled", "the call was aborted by its signal");
  if (err instanceof ClawError) return err;
  return new ClawError("connection_failed", `cannot reach the server: ${(err as Error)?.message ?? String(err)}`);
}

/** POSTs one request envelope to /do and returns the response envelope (errors included). */
export async function postEnvelope(
  fetchImpl: FetchLike,
  baseUrl: string,
  token: string | undefined,
  envelope: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetchImpl(`${baseUrl}/do`, {
    method: "POST",
    headers,
    body: JSON.stringify(envelope),
    signal,
  });
  const text = await res.text();
  try {
    return JSON.parse(text) as Response;
  } catch {
    const id = (envelope as { id?: RequestId }).id ?? null;
    const code: ErrorCode = res.status === 401 ? "unauthorized" : res.status === 403 ? "forbidden" : "internal";
    return { id, ok: false, error: new ClawError(code, `HTTP ${res.status} without a JSON envelope`).toWire() };
  }
}

/** A random call id (crypto.getRandomValues works in every browser context, randomUUID only in secure ones). */
function newCallId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return `c_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** How long an answer may take once its call was cancelled, before the request itself is cut. */
const CANCELLED_ANSWER_MS = 5000;

/**
 * Calls one operation; resolves with its result or throws its ClawError. When `signal` aborts,
 * the call is ended on the server with `cancel_call` (a wait is abandoned, bash is killed) and
 * its answer is awaited, so that closing the client waits for it; if the server cannot be told,
 * the request is cut, which the server also takes as its caller going away. (A caller's own
 * signal rejects the handle call at once, before this answer: see connect.ts.)
 */
export async function httpCall(
  fetchImpl: FetchLike,
  baseUrl: string,
  token: string | undefined,
  op: string,
  args: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  if (signal?.aborted) throw unreachable(undefined, signal);
  const callId = newCallId();
  const cut = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    postEnvelope(fetchImpl, baseUrl, token, { op: "cancel_call", args: { callId } }).then(
      (r) => {
        if (r.ok && (r.result as { cancelled: boolean }).cancelled)
          timer = setTimeout(() => cut.abort(), CANCELLED_ANSWER_MS);
        else cut.abort(); // not (yet) running there: cutting the request stops it
      },
      () => cut.abort(),
    );
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  let response: Response;
  try {
    response = await postEnvelope(fetchImpl, baseUrl, token, { op, args, callId }, cut.signal);
  } catch (err) {
    throw unreachable(err, signal);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    clearTimeout(timer);
  }
  if (response.ok) return response.result;
  throw fromWire(response.error);
}
