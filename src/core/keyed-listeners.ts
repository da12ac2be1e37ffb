/** Sets of listeners by key (a bus, a task id), with removal that drops empty sets. */
export class KeyedListeners<F extends (...args: never[]) => void> {
  private readonly byKey = new Map<string, Set<F>>();

  /** Registers `fn` under `key`; returns its removal. */
  listen(key: string, fn: F): () => void {
    const set = this.byKey.get(key) ?? new Set();
    this.byKey.set(key, set);
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
    };
  }

  /** The listeners of `key`, copied so a listener may remove itself while called. */
  of(key: string): F[] {
    const set = this.byKey.get(key);
    return set ? [...set] : [];
  }

  /** True when any key has listeners. */
  any(): boolean {
    return this.byKey.size > 0;
  }

  /** True when `key` has listeners. */
  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Every key that has listeners. */
  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  /** Every listener of every key. */
  all(): F[] {
    const out: F[] = [];
    for (const set of this.byKey.values()) out.push(...set);
    return out;
  }

  /** Number of listeners of `key`, or of all keys. */
  count(key?: string): number {
    if (key !== undefined) return this.byKey.get(key)?.size ?? 0;
    let n = 0;
    for (const set of this.byKey.values()) n += set.size;
    return n;
  }

  /** Forgets every listener. */
  clear(): void {
    this.byKey.clear();
  }
}
