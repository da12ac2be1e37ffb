/**
 * One HTTP/1.1 answer written straight to a socket (refused connections, malformed requests,
 * refused WebSocket upgrades): the status of the error's code, a JSON error envelope, close.
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { ClawError, toClawError } from "../src/core/errors.js";
import { encodeResponse, errorResponse } from "../src/core/wire.js";

/** The bytes of a complete `Connection: close` response carrying `err` as an error envelope. */
export function rawErrorResponse(err: unknown, headers: Record<string, string> = {}): string {
  const e = toClawError(err);
  const body = encodeResponse(errorResponse(null, e));
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return (
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? ""}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${extra}Connection: close\r\n\r\n${body}`
  );
}

/** Node's parser errors, as the error a client can act on. */
export function parserError(err: NodeJS.ErrnoException): ClawError {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return new ClawError("headers_too_large", "the request's headers are too large");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ClawError("request_timeout", "the request did not arrive in time (--header-timeout)");
    default:
      // The parser's reason (e.g. "Duplicate Content-Length"), never a stack.
      return new ClawError(
        "invalid_request",
        `malformed HTTP request: ${(err as { reason?: string }).reason ?? err.code ?? "unparseable"}`,
        {
          parser: err.code,
        },
      );
  }
}

/** Writes `err` to `socket` as one answer and closes it once written. */
export function refuseSocket(socket: Duplex, err: unknown, headers: Record<string, string> = {}): void {
  socket.on("error", () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorResponse(err, headers));
  socket.once("finish", () => socket.destroy());
}
