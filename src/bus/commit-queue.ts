/**
 * The bus's write pipeline: `out` calls join the open batch, and batches commit one at a time,
 * in call order. While one commit is in flight, new calls gather in the next batch, so a slow
 * store (a network round trip) gets bigger group commits instead of more of them. A fence is a
 * step between two batches: it runs after every batch queued before it has committed and before
 * any later one starts, which is how a subscription learns "the bus's head counting every `out`
 * called before me, and none called after".
 */

type Step<T> = { items: T[]; bytes: number; run?: undefined; done: (() => void)[] } | FenceStep;

interface FenceStep {
  items?: undefined;
  bytes?: undefined;
  run: () => Promise<void>;
  done: (() => void)[];
}

/**
 * Batches of items (one per `out`: the event and how to answer it, in one object) and fences,
 * committed one after the other by `commit`.
 */
export class CommitQueue<T> {
  private readonly steps: Step<T>[] = [];
  private current: Step<T> | null = null;
  private scheduled = false;

  /**
   * `commit` settles every item of its batch (resolve or reject) and never throws. A batch
   * closes at `limits.items` items or `limits.bytes` bytes (the next item starts another), so
   * one statement never has to carry an unbounded backlog.
   */
  constructor(
    private readonly commit: (items: T[]) => Promise<void>,
    private readonly limits: { items: number; bytes: number },
  ) {}

  /** Adds an item of `bytes` to the open batch; the batch commits on the next turn of the event loop at the latest. */
  add(item: T, bytes: number): void {
    const last = this.steps[this.steps.length - 1];
    if (last?.items && last.items.length < this.limits.items && last.bytes + bytes <= this.limits.bytes) {
      last.items.push(item);
      last.bytes += bytes;
    } else this.steps.push({ items: [item], bytes, done: [] });
    if (!this.scheduled && !this.current) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.drive();
      });
    }
  }

  /** True when nothing is queued or committing. */
  get idle(): boolean {
    return this.current === null && this.steps.length === 0;
  }

  /** Resolves once everything queued so far has committed (or failed); starts the commit now. */
  settle(): Promise<void> {
    const p = this.committed();
    void this.drive();
    return p;
  }

  /** Resolves once everything queued so far has committed (or failed), without hurrying it. */
  committed(): Promise<void> {
    const last = this.steps[this.steps.length - 1] ?? this.current;
    if (!last) return Promise.resolve();
    return new Promise((resolve) => last.done.push(resolve));
  }

  /** Runs `fn` after every batch queued so far, before any batch queued later (see the file comment). */
  fence<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.steps.push({ run: () => fn().then(resolve, reject), done: [] });
      void this.drive();
    });
  }

  private async drive(): Promise<void> {
    if (this.current) return; // the running loop picks up what was added
    while (this.steps.length > 0) {
      const step = this.steps.shift()!;
      this.current = step;
      try {
        if (step.items) await this.commit(step.items);
        else await step.run();
      } catch {
        // commit settles its items itself; a fence reports to its own caller
      }
      this.current = null;
      for (const done of step.done) done();
    }
  }
}
