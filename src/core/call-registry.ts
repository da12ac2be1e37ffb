/**
 * Calls in flight that a client named with a `callId`, so that another request can cancel one
 * (`cancel_call`): the remote client's AbortSignal ends the call's work on the server (a wait
 * is abandoned, bash is killed); the call still answers, and the client rejects with its signal's
 * reason as a local call does.
 */

/** Named calls in flight. */
export class CallRegistry {
  private readonly calls = new Map<string, AbortController>();

  /** Registers a call; returns its cancel signal and its removal. */
  register(callId: string): { signal: AbortSignal; release(): void } {
    const c = new AbortController();
    this.calls.set(callId, c);
    return {
      signal: c.signal,
      release: () => {
        if (this.calls.get(callId) === c) this.calls.delete(callId);
      },
    };
  }

  /** True while the named call is in flight. */
  has(callId: string): boolean {
    return this.calls.has(callId);
  }

  /** Aborts the named call; false when no such call is in flight. */
  cancel(callId: string): boolean {
    const c = this.calls.get(callId);
    if (!c) return false;
    c.abort();
    this.calls.delete(callId);
    return true;
  }
}
