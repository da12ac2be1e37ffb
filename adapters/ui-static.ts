/**
 * GET /ui: the dashboard's static files, built into the package by `npm run build` (dist/ui).
 * They hold no data and are served without a token; the page gets its data through /do and /ws
 * with the token the user gives it. Hashed asset names are cached forever, the page itself never,
 * and every response carries a Content-Security-Policy that allows only this origin.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Scripts, styles, images and connections from this origin only (WebSocket included: CSP 3's
 * 'self' covers ws: and wss: on the same host); nothing inline, no frames, no plugins.
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".map": "application/json; charset=utf-8",
  ".png": "image/png",
  ".json": "application/json; charset=utf-8",
};

/** A built asset name carries its content hash (app-3F2KX7QZ.js): it never changes, cache it forever. */
const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/;

/**
 * Where the built UI lives: dist/ui beside the bundle that imports this (the package), else
 * dist/ui of the nearest folder above (running from source, or from a test's own bundle).
 */
export function defaultUiDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  if (existsSync(join(dir, "ui", "index.html"))) return join(dir, "ui");
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, "dist", "ui", "index.html"))) return join(dir, "dist", "ui");
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": UI_CSP,
    "x-content-type-options": "nosniff",
  });
  res.end(text);
}

/**
 * Answers `GET`/`HEAD` under /ui from `dir`. `/ui` and `/ui/` (and any other path without an
 * extension, so a reload on a deep link works) get index.html.
 */
export function serveUi(pathname: string, req: IncomingMessage, res: ServerResponse, dir: string | undefined) {
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    return sendText(res, 405, "the UI is read with GET");
  }
  if (dir === undefined)
    return sendText(res, 404, "the web UI is not built: run `npm run build` (it writes dist/ui) and restart serve");
  let rel: string;
  try {
    rel = decodeURIComponent(pathname.replace(/^\/ui\/?/, ""));
  } catch {
    return sendText(res, 400, "bad URL encoding");
  }
  if (rel === "" || extname(rel) === "") rel = "index.html";
  const file = normalize(join(dir, rel));
  if (!file.startsWith(dir.endsWith(sep) ? dir : dir + sep) || rel.includes("\0"))
    return sendText(res, 404, "not found");
  let body: Buffer;
  let etag: string;
  try {
    const st = statSync(file);
    if (!st.isFile()) return sendText(res, 404, "not found");
    body = readFileSync(file);
    etag = `W/"${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}"`;
  } catch {
    return sendText(res, 404, `no file ${rel} in the UI`);
  }
  const name = rel.split("/").pop() ?? rel;
  const headers = {
    "cache-control": HASHED.test(name) ? "public, max-age=31536000, immutable" : "no-cache",
    etag,
    "content-security-policy": UI_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "x-frame-options": "DENY",
  };
  // no-cache means "revalidate": a reload of an unchanged page costs one 304.
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, headers);
    return void res.end();
  }
  res.writeHead(200, {
    ...headers,
    "content-type": TYPES[extname(name)] ?? "application/octet-stream",
    "content-length": body.length,
  });
  res.end(method === "HEAD" ? undefined : body);
}
