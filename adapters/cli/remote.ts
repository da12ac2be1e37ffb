/** Where a client command finds the server: --url / CLAW_URL, --token / CLAW_TOKEN. */
import { flagOrEnv, type ParsedArgs } from "./args.js";

/** Default server URL. */
export const DEFAULT_URL = "http://127.0.0.1:8000";

/** Help lines of the client flags. */
export const REMOTE_FLAGS_HELP = `  --url URL              the server                                    CLAW_URL      (default ${DEFAULT_URL})
  --token T              bearer token, when the server needs one       CLAW_TOKEN
`;

/** The server URL (no trailing slash) and the headers to send. */
export function remoteOf(args: ParsedArgs): { url: string; headers: Record<string, string> } {
  const url = (flagOrEnv(args, "url") ?? DEFAULT_URL).replace(/\/+$/, "");
  if (!/^https?:\/\//.test(url)) throw new Error(`--url must start with http:// or https://, not "${url}"`);
  const token = flagOrEnv(args, "token");
  return { url, headers: token ? { authorization: `Bearer ${token}` } : {} };
}

/** One line describing a failed fetch (the cause is where Node puts ECONNREFUSED and friends). */
export function fetchFailure(url: string, err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return `cannot reach ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`;
}

/** A one-line error from a response envelope (or any body). */
export function envelopeError(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.code) return `${body.error.code}: ${body.error.message ?? ""}`.replace(/\s*\n\s*/g, " ");
  } catch {
    // not JSON
  }
  return `HTTP ${status}: ${text.slice(0, 200).replace(/\s*\n\s*/g, " ")}`;
}
