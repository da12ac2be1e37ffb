/**
 * The contexts of this node's recently run sessions, kept between runs so a run of a long
 * session reads only the messages stored since the last one (by seq) instead of its whole
 * history. Messages are append-only, so what was read stays true; whatever another node, a
 * compaction or the durable queue stored meanwhile has a higher seq and is read on the next load.
 * Least recently used sessions leave first; a session's context leaves when the session is deleted.
 */
import { RunContext } from "./run-context.js";
import type { SessionStore } from "./session-store.js";

/** Sessions whose context is kept. Default for {@link ContextCache}. */
const DEFAULT_SESSIONS = 16;

/** Recently used sessions' contexts, newest last. */
export class ContextCache {
  private readonly contexts = new Map<string, RunContext>();

  /** @param limit Sessions kept. Default: 16 */
  constructor(private readonly limit = DEFAULT_SESSIONS) {}

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
    if (this.contexts.size > this.limit) this.contexts.delete(this.contexts.keys().next().value!);
    return context;
  }

  /** Forgets a session (deleted, or its run failed in a way that may have left the context behind storage). */
  forget(sessionId: string): void {
    this.contexts.delete(sessionId);
  }
}
