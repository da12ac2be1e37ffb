/** Reads a request body up to a byte limit. */
import type { IncomingMessage } from "node:http";
import { ClawError } from "../src/core/errors.js";

/** Resolves with the body as UTF-8 text; rejects with `payload_too_large` past `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume(); // discard, so the connection can answer
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => failed || resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", (err) => failed || reject(err));
  });
}

function tooLarge(limit: number): ClawError {
  return new ClawError("payload_too_large", `request body exceeds ${limit} bytes`, { limit });
}
