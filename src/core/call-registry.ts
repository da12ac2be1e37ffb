/**
 * Calls in flight that a client named with a `callId`, so that another request can cancel one
 * (`cancel_call`): the remote client's AbortSignal ends the call on the server while the call
 * itself still answers, exactly as a local call whose signal aborts.
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

  /** Aborts the named call; false when no such call is in flight. */
  cancel(callId: string): boolean {
    const c = this.calls.get(callId);
    if (!c) return false;
    c.abort();
    this.calls.delete(callId);
    return true;
  }
}
