/**
 * Where a client command finds the server and its token: --url / CLAW_URL; --token / CLAW_TOKEN,
 * else --token-file / CLAW_TOKEN_FILE, else the token file beside the database (--db / CLAW_DB, default ./claw.db), which is sent only
 * to a loopback URL: a token read from disk never leaves the machine unless the user passes it.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULTS } from "../../src/config/defaults.js";
import type { CommandLine } from "./flags.js";
import { readTokenFile, tokenFilePath } from "./server-token.js";

/** The server, the headers to send, and what to add to a 401 message. */
export interface Remote {
  /** No trailing slash. */
  url: string;
  headers: Record<string, string>;
  /** Said after an `unauthorized` answer: which token was sent, or why none was. */
  authNote: string;
}

/**
 * True when `url` names this machine by an address or by the one name no resolver sends
 * elsewhere: `localhost`, 127.0.0.0/8 or ::1. Not `*.localhost`: browsers keep those local, but
 * the system resolver may ask DNS for them. (The URL parser has already normalised `127.1`,
 * `0x7f.0.0.1` and the like to dotted decimal, and lowercased the name.)
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Resolves the server URL and the token to send. */
export function remoteOf(cl: CommandLine): Remote {
  const url = cl.get<string>("url") ?? DEFAULTS.url;
  const explicit = cl.get<string>("token");
  if (explicit) {
    const from = cl.given("token") ? "--token" : "CLAW_TOKEN";
    return { url, headers: { authorization: `Bearer ${explicit}` }, authNote: `(the token from ${from})` };
  }
  const given = cl.get<string>("token-file");
  if (given) {
    // Named explicitly, so sent to any URL, as --token is.
    const path = resolve(given);
    const { token } = readTokenFile(path);
    const from = cl.given("token-file") ? "--token-file" : "CLAW_TOKEN_FILE";
    return { url, headers: { authorization: `Bearer ${token}` }, authNote: `(the token in ${path}, from ${from})` };
  }
  const file = tokenFilePath(cl.get<string>("db") ?? DEFAULTS.db);
  if (!isLoopbackUrl(url))
    return {
      url,
      headers: {},
      authNote: `(no token sent: ${file ?? "a token file"} is sent only to loopback URLs; pass --token-file, --token or CLAW_TOKEN)`,
    };
  if (file === undefined || !existsSync(file))
    return {
      url,
      headers: {},
      authNote: `(no token sent: no ${file ?? "token file"}; pass --db (the server's database), --token-file, --token or CLAW_TOKEN)`,
    };
  const { token } = readTokenFile(file);
  return { url, headers: { authorization: `Bearer ${token}` }, authNote: `(the token from ${file})` };
}

/** One line describing a failed fetch (the cause is where Node puts ECONNREFUSED and friends). */
export function fetchFailure(url: string, err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (err as Error).message;
  const hint = cause?.code === "ECONNREFUSED" ? " (is tsclaw serve running there? --url or CLAW_URL names it)" : "";
  return `cannot reach ${url}: ${why}${hint}`;
}

/**
 * A one-line error from a response envelope (or any body), with the server's suggestions when it
 * gave some; `authNote` follows an `unauthorized`.
 */
export function envelopeError(status: number, text: string, authNote = ""): string {
  try {
    const body = JSON.parse(text) as {
      error?: { code?: string; message?: string; details?: { suggestions?: unknown } };
    };
    if (body.error?.code) {
      const line = `${body.error.code}: ${body.error.message ?? ""}`.replace(/\s*\n\s*/g, " ");
      const suggestions = body.error.details?.suggestions;
      const named = Array.isArray(suggestions) && suggestions.length > 0 && !line.includes("did you mean");
      if (body.error.code === "unauthorized" && authNote) return `${line} ${authNote}`;
      return named ? `${line} (did you mean ${suggestions.join(", ")}?)` : line;
    }
  } catch {
    // not JSON
  }
  return `HTTP ${status}: ${text.slice(0, 200).replace(/\s*\n\s*/g, " ")}`;
}
