/** Waits a caller may abandon: the caller gets `cancelled`, the work it waited for goes on. */
import { ClawError } from "../core/errors.js";

/** Resolves as `promise` does, or rejects with `cancelled` once `signal` aborts (the run continues). */
export function waitUnlessGone<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const gone = () => new ClawError("cancelled", "the caller went away; the run continues (stop it with abort)");
  if (signal.aborted) return Promise.reject(gone());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(gone());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
