/**
 * Bounded garbage for the CLI's long-running commands (serve, stdio, mcp). Every large payload
 * read from storage becomes a string in V8's large-object space, which only a full collection
 * frees, and V8 starts one only once the old generation has grown well past its last size:
 * reading 150 events of 1 MiB over every transport of `tsclaw serve` raised its peak RSS by
 * 90 MiB without help, 20 MiB with a full collection after each 12 MiB of large payloads.
 * The CLI is the program here, not a guest in someone else's, so it may expose `gc` in its own
 * process; the library never does. The guard looks at the heap a few times a second and
 * collects once it has grown by {@link GROWTH_BYTES} since the last look after a collection:
 * at most one full collection per that much growth, whether it was garbage or live data.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Heap growth that triggers a full collection. */
export const GROWTH_BYTES = 24 * 1024 * 1024;
/** How often the heap is looked at, in milliseconds. */
export const CHECK_MS = 200;

let started = false;

/** The full collection of this process, exposed once; null when this runtime refuses. */
function exposeGc(): (() => void) | null {
  const own = (globalThis as { gc?: () => void }).gc;
  if (own) return own;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return null; // V8's own schedule applies
  }
}

/** Starts the guard for this process (once; its timer does not keep the process alive). */
export function startHeapGuard(): void {
  if (started) return;
  started = true;
  const gc = exposeGc();
  if (!gc) return;
  let base = getHeapStatistics().used_heap_size;
  setInterval(() => {
    const used = getHeapStatistics().used_heap_size;
    if (used < base)
      base = used; // V8 collected by itself
    else if (used - base >= GROWTH_BYTES) {
      gc();
      base = getHeapStatistics().used_heap_size;
    }
  }, CHECK_MS).unref();
}
