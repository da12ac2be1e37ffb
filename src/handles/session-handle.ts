/**
 * The session handles: `claw.session.*` are derived from the registry; what derivation cannot do
 * is here: `start`, `get` and `fork` resolve to a {@link SessionHandle} whose methods are the
 * session operations bound to that one session.
 */
import type { Session } from "../agent/session-schemas.js";
import type { Derived } from "./derive.js";
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

type Method = (args?: object, opts?: CallOptions) => Promise<unknown>;

const STATE_ONLY = ["isRunning", "messageCount", "pending", "currentRunId", "currentTaskId"] as const;

/** Builds `claw.session` from the derived session methods. */
export function createSessionsHandle(derived: Derived): SessionsHandle {
  const methods = derived.groups.session ?? {};
  const bind = (data: Session): SessionHandle => {
    const ref = { sessionId: data.sessionId };
    const handle: Record<string, unknown> = { ...data };
    for (const name of derived.sessionBound) {
      const m = methods[name] as Method;
      handle[name] = (args: object = {}, opts?: CallOptions) => m({ ...args, ...ref }, opts);
    }
    handle.fork = async (args: object = {}, opts?: CallOptions) =>
      bind((await (methods.fork as Method)({ ...args, ...ref }, opts)) as Session);
    return handle as unknown as SessionHandle;
  };
  return {
    ...(methods as unknown as GroupMethods<"session">),
    start: async (args = {}, opts) => bind((await (methods.start as Method)(args, opts)) as Session),
    get: async (ref, opts) => {
      const state = (await (methods.state as Method)(ref, opts)) as Record<string, unknown>;
      for (const k of STATE_ONLY) delete state[k];
      return bind(state as Session);
    },
    fork: async (args, opts) => bind((await (methods.fork as Method)(args, opts)) as Session),
  };
}
