/**
 * Keeps the garbage of large payloads bounded. Pages bound what is live, but every payload
 * read from storage becomes a string in V8's large-object space, which only a full collection
 * frees, and V8 starts one only once the old generation has grown well past its last size: a
 * reader of a bus of 1 MiB events left ~60 MiB of dead strings per transport before V8 got to
 * them. After every {@link LARGE_GARBAGE_BYTES} of large payloads handed out, this runs a full
 * collection (a few milliseconds on a small heap, against hundreds spent reading those bytes).
 * Small payloads never count: they die young and are cheap to collect.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Payloads at least this big count as large (V8 puts strings this size in large-object space). */
export const LARGE_PAYLOAD_BYTES = 64 * 1024;
/** Large payload bytes handed out between two collections. */
export const LARGE_GARBAGE_BYTES = 12 * 1024 * 1024;

let sinceCollect = 0;
let collect: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) collect = exposed;
    else {
      setFlagsFromString("--expose-gc");
      collect = runInNewContext("gc") as () => void;
    }
  } catch {
    collect = null; // not available on this runtime: V8's own schedule applies
  }
  return collect;
}

/** Counts a payload of `bytes` just handed out; collects once enough large ones were. */
export function noteLargePayload(bytes: number): void {
  if (bytes < LARGE_PAYLOAD_BYTES) return;
  sinceCollect += bytes;
  if (sinceCollect < LARGE_GARBAGE_BYTES) return;
  sinceCollect = 0;
  // After the current page is delivered: its strings are garbage by then.
  setImmediate(() => collector()?.());
}
