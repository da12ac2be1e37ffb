/** Where a client command finds the server: --url / CLAW_URL, --token / CLAW_TOKEN. */
import { DEFAULTS } from "../../src/config/defaults.js";
import type { CommandLine } from "./flags.js";

/** The server URL (no trailing slash) and the headers to send. */
export function remoteOf(cl: CommandLine): { url: string; headers: Record<string, string> } {
  const url = cl.get<string>("url") ?? DEFAULTS.url;
  const token = cl.get<string>("token");
  return { url, headers: token ? { authorization: `Bearer ${token}` } : {} };
}

/** One line describing a failed fetch (the cause is where Node puts ECONNREFUSED and friends). */
export function fetchFailure(url: string, err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (err as Error).message;
  const hint = cause?.code === "ECONNREFUSED" ? " (is tsclaw serve running there? --url or CLAW_URL names it)" : "";
  return `cannot reach ${url}: ${why}${hint}`;
}

/** A one-line error from a response envelope (or any body), with the server's suggestions when it gave some. */
export function envelopeError(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as {
      error?: { code?: string; message?: string; details?: { suggestions?: unknown } };
    };
    if (body.error?.code) {
      const line = `${body.error.code}: ${body.error.message ?? ""}`.replace(/\s*\n\s*/g, " ");
      const suggestions = body.error.details?.suggestions;
      const named = Array.isArray(suggestions) && suggestions.length > 0 && !line.includes("did you mean");
      return named ? `${line} (did you mean ${suggestions.join(", ")}?)` : line;
    }
  } catch {
    // not JSON
  }
  return `HTTP ${status}: ${text.slice(0, 200).replace(/\s*\n\s*/g, " ")}`;
}
