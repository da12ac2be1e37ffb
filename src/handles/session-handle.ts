/**
 * The session handles: `claw.session.*` are derived from the registry; what derivation cannot do
 * is here: `start`, `get` and `fork` resolve to a {@link SessionHandle} whose methods are the
 * session operations bound to that one session.
 */
import type { Session } from "../agent/session-schemas.js";
import type { CallMethod, Derived } from "./derive.js";
import type { CallOptions, GroupMethods, OpInput, SessionBoundMethods } from "./handle-types.js";

/** A session's data plus the session operations bound to it (`prompt`, `steer`, `state`, …). */
export interface SessionHandle extends Session, Omit<SessionBoundMethods, "fork"> {
  /** Forks the session; resolves with a handle on the new one. */
  fork(
    args?: Omit<OpInput<"fork">, "sessionId" | "sessionKey" | "session">,
    opts?: CallOptions,
  ): Promise<SessionHandle>;
}

/** A reference to an existing session. */
export interface SessionRef {
  sessionId?: string;
  sessionKey?: string;
}

/** `claw.session`: every session operation by reference, plus handles bound to one session. */
export interface SessionsHandle extends Omit<GroupMethods<"session">, "start" | "fork"> {
  /** Starts a session, or returns the one with this `sessionKey`, as a bound handle. */
  start(args?: OpInput<"start_session">, opts?: CallOptions): Promise<SessionHandle>;
  /** A handle on an existing session (`not_found` otherwise). */
  get(ref: SessionRef, opts?: CallOptions): Promise<SessionHandle>;
  /** Forks a session by reference; resolves with a handle on the new one. */
  fork(args: OpInput<"fork">, opts?: CallOptions): Promise<SessionHandle>;
}

/**
 * Builds `claw.session` from the derived session methods: `methods` typed, `derived` for the
 * names of those that take a session reference (a session handle binds them).
 */
export function createSessionsHandle(derived: Derived, methods: GroupMethods<"session">): SessionsHandle {
  const byName = derived.groups.session ?? {};
  const bind = (data: Session): SessionHandle => {
    const ref = { sessionId: data.sessionId };
    const handle: Record<string, unknown> = { ...data };
    for (const name of derived.sessionBound) {
      const m = byName[name] as CallMethod;
      handle[name] = (args: object = {}, opts?: CallOptions) => m({ ...args, ...ref }, opts);
    }
    handle.fork = async (args: object = {}, opts?: CallOptions) => bind(await methods.fork({ ...args, ...ref }, opts));
    // Bound by name (the operations that take a session reference), as `SessionBoundMethods` computes them.
    return handle as unknown as SessionHandle;
  };
  return {
    ...methods,
    start: async (args = {}, opts) => bind(await methods.start(args, opts)),
    get: async (ref, opts) => {
      const {
        isRunning: _isRunning,
        running: _running,
        messageCount: _messageCount,
        pending: _pending,
        queuedRuns: _queuedRuns,
        currentRunId: _currentRunId,
        currentTaskId: _currentTaskId,
        ...session
      } = await methods.state(ref, opts);
      return bind(session);
    },
    fork: async (args, opts) => bind(await methods.fork(args, opts)),
  };
}
