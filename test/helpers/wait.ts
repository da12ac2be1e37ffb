/**
 * Options for `vi.waitFor` in tests that wait on a server, a child process or a model turn:
 * vi.waitFor's own default (1 s, checked every 50 ms) is too short on a loaded 2-core machine.
 * A longer wait spreads it: `{ ...WAIT, timeout: 20_000 }`.
 */

/** Waits up to 10 s, checking every 10 ms. */
export const WAIT = { timeout: 10_000, interval: 10 } as const;
