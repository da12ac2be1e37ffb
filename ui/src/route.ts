/**
 * Hash routes (`#/tasks?status=error`, `#/task/<id>`, `#/session/<id>`, `#/bus/<name>?from=N`):
 * the server serves one page for /ui, and a reload lands on the same view with the same filters.
 */
import { useEffect, useState } from "preact/hooks";

/** A parsed route: the path parts and the query. */
export interface Route {
  parts: string[];
  query: URLSearchParams;
}

/** Parses a hash like `#/bus/tasks?from=10`. */
export function parseRoute(hash: string): Route {
  const [path = "", q = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts: parts.length ? parts : ["tasks"], query: new URLSearchParams(q) };
}

/** The current route; re-renders on every hash change. */
export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return parseRoute(hash);
}

/** Builds a hash link: `href("task", id)` → `#/task/<id>`; query values that are empty are left out. */
export function href(...parts: (string | Record<string, string | undefined>)[]): string {
  const path = parts.filter((p): p is string => typeof p === "string").map(encodeURIComponent);
  const q = parts.find((p): p is Record<string, string | undefined> => typeof p !== "string");
  const query = new URLSearchParams(Object.entries(q ?? {}).filter((e): e is [string, string] => !!e[1]));
  const qs = query.toString();
  return `#/${path.join("/")}${qs ? `?${qs}` : ""}`;
}

/** Replaces the route's query without adding a history entry (filters). */
export function replaceQuery(parts: string[], query: Record<string, string | undefined>): void {
  history.replaceState(null, "", href(...parts, query));
  dispatchEvent(new HashChangeEvent("hashchange"));
}
