/**
 * The async iterator of a subscription, local and remote alike: a source pushes items, a reader
 * pulls them. An item meets a waiting `next()` or is buffered; once the buffer is full (by count,
 * or by bytes when sizes are given) `push` says so and the source pauses (it re-reads from
 * storage later), and the source is resumed when the reader has emptied the buffer. A failure
 * reaches the reader after the items buffered before it.
 */

/** An async iterator of events that can be closed early. */
export interface EventStream<T> extends AsyncIterableIterator<T> {
  close(): void;
}

/** What the iterator tells its source. */
export interface IteratorSource {
  /** Continue a paused delivery. Safe to call at any time. */
  resume(): void;
  /** Stop for good (the reader closed the iterator). */
  close(): void;
}

/** Buffer bounds of an {@link EventIterator}. */
export interface IteratorLimits<R> {
  /** Items buffered before the source pauses. */
  maxItems: number;
  /** Bytes buffered before the source pauses (with `sizeOf`). Default: no byte bound */
  maxBytes?: number;
  /** The size of a buffered item, for `maxBytes`. */
  sizeOf?: (item: R) => number;
}

/** Buffers items of type R pushed by a source and hands them to the reader as T. */
export class EventIterator<R, T> {
  private readonly buffer: R[] = [];
  private bytes = 0;
  private waiter: { resolve(r: IteratorResult<T>): void; reject(e: unknown): void } | undefined;
  private failure: unknown;
  private failed = false;
  private finished = false;
  private closed = false;
  /** The reader's side. */
  readonly stream: EventStream<T>;

  constructor(
    private readonly source: IteratorSource,
    private readonly convert: (item: R) => T,
    private readonly limits: IteratorLimits<R>,
  ) {
    const stream: EventStream<T> = {
      next: () => this.next(),
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
      close: () => this.close(),
      [Symbol.asyncIterator]: () => stream,
    };
    this.stream = stream;
  }

  /** Takes `item`; false when the buffer is now full and the source should pause. */
  push(item: R): boolean {
    if (this.finished) return false;
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w.resolve({ value: this.convert(item), done: false });
      return true;
    }
    this.buffer.push(item);
    this.bytes += this.limits.sizeOf?.(item) ?? 0;
    return this.buffer.length < this.limits.maxItems && this.bytes < (this.limits.maxBytes ?? Infinity);
  }

  /** Ends the stream with `err`, after what is buffered. */
  fail(err: unknown): void {
    this.failure = err;
    this.failed = true;
    this.finished = true;
    this.settle();
  }

  /** Ends the stream after what is buffered. */
  end(): void {
    this.finished = true;
    this.settle();
  }

  private next(): Promise<IteratorResult<T>> {
    const item = this.buffer.shift();
    if (item !== undefined) {
      this.bytes -= this.limits.sizeOf?.(item) ?? 0;
      if (this.buffer.length === 0 && !this.finished) this.source.resume();
      return Promise.resolve({ value: this.convert(item), done: false });
    }
    if (this.failed) {
      this.failed = false;
      return Promise.reject(this.failure);
    }
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    this.source.resume();
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.finished = true;
    this.failed = false;
    this.buffer.length = 0;
    this.bytes = 0;
    this.source.close();
    this.settle();
  }

  /** Answers a waiting reader once the stream has ended. */
  private settle(): void {
    const w = this.waiter;
    if (!w || this.buffer.length > 0) return;
    this.waiter = undefined;
    if (this.failed) {
      this.failed = false;
      w.reject(this.failure);
    } else w.resolve({ value: undefined, done: true });
  }
}
