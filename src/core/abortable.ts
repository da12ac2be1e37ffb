/**
 * How a call with an AbortSignal settles, locally and remotely, as `fetch` and every JavaScript
 * API a user knows do: once the signal aborts, the call rejects at once with the signal's reason
 * (an `AbortError` DOMException unless the caller gave another). The work itself is ended by
 * the same signal on its own path (a wait abandoned, bash killed, `cancel_call` sent); whatever
 * it answers afterwards is dropped.
 */

/**
 * Starts `start()` unless `signal` has already aborted, and settles as its promise does, unless
 * `signal` aborts first: then rejects with `signal.reason`. Without a signal it is `start()`.
 */
export function abortable<T>(signal: AbortSignal | undefined, start: () => Promise<T>): Promise<T> {
  if (!signal) return start();
  if (signal.aborted) return Promise.reject(signal.reason);
  const work = start();
  if (signal.aborted) {
    // Aborted while starting (a synchronous abort from inside the call): the same as before it.
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {}); // its late outcome goes nowhere, and is no unhandled rejection
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
