/**
 * The typed session handle: `claw.session.start(args)` returns a {@link SessionHandle} whose
 * methods are bound to that session; `get(ref)` builds one for an existing session. Every call
 * goes through the dispatcher, so types and validation come from the operations' schemas.
 */
import type { CallContext } from "../dispatch.js";
import type { Caller, OpInput, OpOutput } from "./caller.js";

type RefKeys = "sessionId" | "sessionKey" | "session";
/** Arguments of op N without the session reference (the handle supplies it). */
type Rest<N extends Parameters<Caller>[0]> = Omit<OpInput<N>, RefKeys>;

/** A session's data plus methods bound to it. */
export type SessionHandle = ReturnType<typeof bindSession>;

function bindSession(call: Caller, session: OpOutput<"start_session">) {
  const ref = { sessionId: session.sessionId };
  return {
    ...session,
    /** Sends a message and waits for the run's result (see the `prompt` operation). */
    prompt: (message: string, opts: Omit<Rest<"prompt">, "message"> = {}, ctx?: CallContext) =>
      call("prompt", { ...ref, ...opts, message }, ctx),
    /** Queues a steering message for the next turn boundary. */
    steer: (message: string) => call("steer", { ...ref, message }),
    /** Queues a message for when the run would end. */
    followUp: (message: string) => call("follow_up", { ...ref, message }),
    /** Aborts the active run. */
    abort: () => call("abort", ref),
    /** Drops queued steering and follow-up messages. */
    clearQueue: () => call("clear_queue", ref),
    /** Session, run state and queue sizes. */
    state: () => call("get_state", ref),
    /** Messages in order, with cursor paging. */
    messages: (args: Rest<"get_messages"> = {}) => call("get_messages", { ...ref, ...args }),
    /** Changes the model (and provider). */
    setModel: (model: string, provider?: string) =>
      call("set_model", { ...ref, model, ...(provider !== undefined ? { provider } : {}) }),
    /** Renames the session. */
    setName: (name: string) => call("set_session_name", { ...ref, name }),
    /** Forks the session; resolves with a handle on the new one. */
    fork: async (args: Rest<"fork"> = {}) => bindSession(call, await call("fork", { ...ref, ...args })),
    /** Summarises older history (see the `compact` operation). */
    compact: (instructions?: string) =>
      call("compact", { ...ref, ...(instructions !== undefined ? { instructions } : {}) }),
    /** Message, tool-call, run and token counts. */
    stats: () => call("get_session_stats", ref),
    /** The newest assistant text, or null. */
    lastAssistantText: async () => (await call("get_last_assistant_text", ref)).text,
    /** Markdown or JSON-lines export. Default format: "markdown" */
    export: async (format: "markdown" | "jsonl" = "markdown") =>
      (await call("export_session", { ...ref, format })).content,
    /** Deletes the session (aborting any run). */
    delete: async () => (await call("delete_session", ref)).deleted,
  };
}

/** Builds `claw.session`. */
export function createSessionHandle(call: Caller) {
  return {
    /** Starts a session, or returns the one with this `sessionKey`, as a bound handle. */
    start: async (args: OpInput<"start_session"> = {}): Promise<SessionHandle> =>
      bindSession(call, await call("start_session", args)),
    /** A handle on an existing session (`not_found` otherwise). */
    get: async (ref: { sessionId?: string; sessionKey?: string }): Promise<SessionHandle> => {
      const {
        isRunning: _r,
        messageCount: _m,
        pending: _p,
        currentRunId: _c,
        currentTaskId: _t,
        ...session
      } = await call("get_state", ref);
      return bindSession(call, session);
    },
    /** Lists sessions, newest first. */
    list: (args: OpInput<"list_sessions"> = {}) => call("list_sessions", args),
    /** Deletes a session by reference. */
    delete: async (ref: { sessionId?: string; sessionKey?: string }) => (await call("delete_session", ref)).deleted,
  };
}
