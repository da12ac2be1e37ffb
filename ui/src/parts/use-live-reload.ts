/**
 * Keeps a list view current without a Refresh click: `reload` runs when the tasks bus reports a
 * change (a new task usually means a new session and new bus events) and every few seconds
 * while the tab is visible, for changes no bus announces (a session started by start_session,
 * an event on any bus).
 */
import { useEffect, useRef } from "preact/hooks";
import { useConnection } from "../connection.js";

/** How often a visible list reloads when nothing announced a change. Default: 3 s */
export const RELOAD_MS = 3000;

/** Calls the newest `reload` on task changes (at most once a second) and every `everyMs` while visible. */
export function useLiveReload(reload: () => void, everyMs = RELOAD_MS): void {
  const { tasks } = useConnection();
  const latest = useRef(reload);
  latest.current = reload;
  useEffect(() => {
    let last = 0;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const soon = () => {
      if (pending) return;
      const wait = Math.max(0, last + 1000 - Date.now());
      pending = setTimeout(() => {
        pending = undefined;
        last = Date.now();
        latest.current();
      }, wait);
    };
    const stopListening = tasks.listen(soon);
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") soon();
    }, everyMs);
    return () => {
      stopListening();
      clearInterval(timer);
      clearTimeout(pending);
    };
  }, [tasks, everyMs]);
}
