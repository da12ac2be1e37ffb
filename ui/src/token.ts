/**
 * The server token in the browser: taken from the fragment `serve` prints (`/ui#token=…`, never
 * sent to any server), kept in sessionStorage (this tab only, gone when it closes), and sent as
 * `Authorization: Bearer` on /do by the client. The fragment is cleared at once so the token does
 * not stay in the address bar or the history.
 */
const KEY = "tsclaw.token";

/** Moves a `#token=…` fragment into sessionStorage; returns the token now stored, if any. */
export function takeToken(): string | undefined {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    const token = decodeURIComponent(m[1]!);
    if (token.trim() !== "") sessionStorage.setItem(KEY, token);
    history.replaceState(null, "", `${location.pathname}${location.search}#/tasks`);
  }
  return storedToken();
}

/** The stored token, if any. */
export function storedToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

/** Stores a token typed into the token box. */
export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token.trim());
}

/** Forgets the token (a refused one, or "forget token"). */
export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
