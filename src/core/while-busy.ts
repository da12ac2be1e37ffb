import { ClawError } from "./errors.js";

/**
 * Calls that go together while one is on its way. The first call goes at once; those that come
 * while it is on its way wait, then go together in one batch, and so on. Where each call costs
 * a round trip (a PostgreSQL statement costs both sides more than its rows' work), a batch
 * costs one, and nothing waits when nothing else is on its way: a lone call costs what it did.
 *
 * With a `key`, a batch goes in rounds where no key comes twice (distinctRounds): a statement
 * writes a row once and does not see its own writes. A round that fails goes again one call at
 * a time, so an input its statement chokes on fails alone (a failed statement wrote nothing,
 * and the rounds already written are not sent again); only a store that is unavailable fails
 * the whole round.
 *
 * With `overlap`, a batch does not wait for the one on its way: the calls of one turn (those
 * made before the microtasks run out) go together, and the next turn's go at once, whatever is
 * still on its way. For statements handed to a store that itself sends what comes while a
 * round trip is on its way together (PostgreSQL's write groups, statement-groups.ts): waiting
 * here as well made each such write wait twice, ~10 ms instead of ~5 with 20 sessions at once
 * (bench/README.md). Only for work whose batches may be on their way together: rows no other
 * batch of the same instance writes at the same time, or writes whose store keeps their order.
 */
export class WhileBusy<I, O> {
  private waiting: Call<I, O>[] = [];
  private busy = false;
  /** overlap: a send of this turn's calls is queued. */
  private queued = false;

  private readonly key: ((input: I) => string) | undefined;
  private readonly overlap: boolean;

  constructor(
    /** Answers a round: one output per input, in their order (or throws for them all). */
    private readonly send: (inputs: readonly I[]) => Promise<readonly O[]>,
    options: {
      /** What may come once per round (none: any input may come several times). */
      key?: (input: I) => string;
      /** Batches go without waiting for the one on its way (the class comment). Default: false */
      overlap?: boolean;
    } = {},
  ) {
    this.key = options.key;
    this.overlap = options.overlap ?? false;
  }

  call(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.overlap) {
        if (!this.queued) {
          this.queued = true;
          queueMicrotask(() => {
            this.queued = false;
            void this.sendRounds(this.take());
          });
        }
      } else if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.waiting.length > 0) await this.sendRounds(this.take());
    } finally {
      this.busy = false;
    }
  }

  /** The calls waiting, in rounds where no key comes twice. */
  private take(): Call<I, O>[][] {
    const calls = this.waiting;
    this.waiting = [];
    const key = this.key;
    return key ? distinctRounds(calls, (c) => key(c.input)).map((r) => r.map((x) => x.item)) : [calls];
  }

  /** One round after the other: a key's later call never goes before its earlier one has answered. */
  private async sendRounds(rounds: readonly (readonly Call<I, O>[])[]): Promise<void> {
    for (const round of rounds) await this.sendRound(round);
  }

  private async sendRound(calls: readonly Call<I, O>[]): Promise<void> {
    try {
      const outputs = await this.send(calls.map((c) => c.input));
      for (let i = 0; i < calls.length; i++) calls[i]!.resolve(outputs[i]!);
    } catch (err) {
      const unavailable = err instanceof ClawError && err.code === "storage_unavailable";
      if (calls.length === 1 || unavailable) for (const c of calls) c.reject(err);
      else for (const c of calls) await this.send([c.input]).then(([o]) => c.resolve(o!), c.reject);
    }
  }
}

interface Call<I, O> {
  input: I;
  resolve(output: O): void;
  reject(err: unknown): void;
}

/**
 * `items`, each with its index, in rounds where no key comes twice: round n holds the n-th item
 * of each key, in their order.
 */
export function distinctRounds<T>(items: readonly T[], key: (item: T) => string): { item: T; i: number }[][] {
  const rounds: { item: T; i: number }[][] = [];
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    rounds[n] ??= [];
    rounds[n].push({ item, i });
  });
  return rounds;
}
