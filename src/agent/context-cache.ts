/**
 * The contexts of this node's recently run sessions, kept between runs so a run of a long
 * session reads only the messages stored since the last one (by seq) instead of its whole
 * history. Messages are append-only, so what was read stays true; whatever another node, a
 * compaction or the durable queue stored meanwhile has a higher seq and is read on the next load.
 * Bounded twice: by sessions, and by the size of what they hold (a few sessions with long tool
 * outputs can hold more than many short ones). Least recently used sessions leave first; a
 * session's context leaves when the session is deleted.
 */
import { RunContext } from "./run-context.js";
import type { SessionStore } from "./session-store.js";

/**
 * Sessions whose context is kept. Default for {@link ContextCache}. 32: a node serving 20
 * sessions at once (the PostgreSQL tasks bench) re-read every session's whole history at 16;
 * memory is held by the size bound below, not by this count.
 */
const DEFAULT_SESSIONS = 32;
/** Size of the kept contexts, in characters of their messages' JSON. Default for {@link ContextCache}. */
const DEFAULT_CHARS = 16 * 1024 * 1024;

/** Recently used sessions' contexts, newest last. */
export class ContextCache {
  private readonly contexts = new Map<string, RunContext>();

  /**
   * @param limit Sessions kept. Default: 32
   * @param maxChars Total size kept, in characters of the messages' JSON (a context larger than
   *   this on its own serves its run and is not kept). Default: 16 Mi
   */
  constructor(
    private readonly limit = DEFAULT_SESSIONS,
    private readonly maxChars = DEFAULT_CHARS,
  ) {}

  /** The session's context, up to date with storage; the caller appends to it while its run lasts. */
  async load(store: SessionStore, sessionId: string, provider?: string): Promise<RunContext> {
    let context = this.contexts.get(sessionId);
    this.contexts.delete(sessionId);
    // The replayed input depends on the provider (call ids without their reasoning): a session
    // whose provider changed is converted again.
    if (context && context.provider === provider) {
      for (const m of await store.messages(sessionId, context.lastSeq)) context.add(m);
    } else {
      context = new RunContext(await store.allMessages(sessionId), provider);
    }
    this.contexts.set(sessionId, context);
    this.evict();
    return context;
  }

  /**
   * The session's kept context, taken out until {@link keep} puts it back, when it can be
   * brought up to date by the caller (kept, same provider); else undefined (load reads it).
   */
  take(sessionId: string, provider?: string): RunContext | undefined {
    const context = this.contexts.get(sessionId);
    if (!context || context.provider !== provider) return undefined;
    this.contexts.delete(sessionId);
    return context;
  }

  /** Keeps a context brought up to date by the caller (see {@link take}). */
  keep(sessionId: string, context: RunContext): void {
    this.contexts.set(sessionId, context);
    this.evict();
  }

  /** Forgets a session (deleted, or its run failed in a way that may have left the context behind storage). */
  forget(sessionId: string): void {
    this.contexts.delete(sessionId);
  }

  /** Number of sessions kept (for tests and diagnostics). */
  get size(): number {
    return this.contexts.size;
  }

  /** Drops the least recently used contexts until both bounds hold (sizes change as runs append). */
  private evict(): void {
    let chars = 0;
    for (const c of this.contexts.values()) chars += c.chars;
    for (const [id, c] of this.contexts) {
      if (this.contexts.size <= this.limit && chars <= this.maxChars) return;
      this.contexts.delete(id);
      chars -= c.chars;
    }
  }
}
