/**
 * The types of the typed handles, computed from the registry: every operation whose definition
 * names a handle ("group.method") becomes `claw.group.method(args, opts?)` with its zod input and
 * output types. Local and remote claws share these types, so a new operation appears in both.
 */
import type { z } from "zod";
import type { BusEvent } from "../bus/bus-schemas.js";
import type { CallContext } from "../dispatch/dispatch.js";
import type { OpName, RegisteredOp } from "../ops/index.js";

/** Options of one handle call. */
export interface CallOptions {
  /** Ends the call, on the server too (a waiting check_task stops waiting, bash is killed). */
  signal?: AbortSignal;
}

type OpOf<N extends OpName> = Extract<RegisteredOp, { name: N }>;
type In<O extends RegisteredOp> = z.input<O["input"]>;
type Out<O extends RegisteredOp> = z.output<O["output"]>;
type HandleOf<O> = O extends { handle: infer H } ? H : never;
type IsStream<O> = O extends { kind: "stream" } ? true : false;

/** Arguments of operation N, as a caller writes them (defaults optional). */
export type OpInput<N extends OpName> = In<OpOf<N>>;

/** Result of operation N. */
export type OpOutput<N extends OpName> = Out<OpOf<N>>;

/** Calls an operation by name with typed arguments; rejects with ClawError. */
export type Caller = <N extends OpName>(name: N, args: OpInput<N>, ctx?: CallContext) => Promise<OpOutput<N>>;

/** A handle method; its arguments are optional when every field is. */
export type OpMethod<A, R> =
  Record<string, never> extends A
    ? (args?: A, opts?: CallOptions) => Promise<R>
    : (args: A, opts?: CallOptions) => Promise<R>;

/** The session reference fields a bound session handle fills in. */
export type SessionRefKeys = "sessionId" | "sessionKey" | "session";

/** Names of the handle groups (`bus`, `session`, `task`, …). */
export type HandleGroup =
  HandleOf<RegisteredOp> extends infer H ? (H extends `${infer G}.${string}` ? G : never) : never;

/** An async iterator over a bus's events; `close()` (or `break`) ends it. */
export interface BusEventStream extends AsyncIterableIterator<BusEvent> {
  close(): void;
}

/**
 * The handle method of a stream operation. `Unsubscribe` is what the callback form returns:
 * `() => void` locally, `() => Promise<void>` remotely (it resolves once the server stopped it).
 */
export interface StreamMethod<A, Unsubscribe> {
  /** Calls `handler` for each event, in seq order: the backlog after `after`, then live ones. */
  (args: A, handler: (event: BusEvent) => void): Unsubscribe;
  /** The same events as an async iterator. */
  (args?: A): BusEventStream;
}

/** The call methods of handle group G: one per operation whose handle is "G.method". */
export type GroupMethods<G extends string> = {
  [O in RegisteredOp as IsStream<O> extends true ? never : HandleOf<O> extends `${G}.${infer M}` ? M : never]: OpMethod<
    In<O>,
    Out<O>
  >;
};

/** The stream methods of handle group G: one per stream operation whose handle is "G.method". */
export type StreamMethods<G extends string, Unsubscribe> = {
  [O in RegisteredOp as IsStream<O> extends true
    ? HandleOf<O> extends `${G}.${infer M}`
      ? M
      : never
    : never]: StreamMethod<In<O>, Unsubscribe>;
};

/** Top-level methods: operations whose handle is a bare name (`claw.bash`). */
export type TopMethods = {
  [O in RegisteredOp as HandleOf<O> extends `${string}.${string}`
    ? never
    : HandleOf<O> extends string
      ? HandleOf<O>
      : never]: OpMethod<In<O>, Out<O>>;
};

/** Every handle group with its derived methods: calls and streams. */
export type DerivedGroups<Unsubscribe = () => void> = {
  [G in HandleGroup]: GroupMethods<G> & StreamMethods<G, Unsubscribe>;
};

/** Methods of a session handle: the session operations that take a session reference, bound to it. */
export type SessionBoundMethods = {
  [O in RegisteredOp as HandleOf<O> extends `session.${infer M}`
    ? "sessionId" extends keyof In<O>
      ? M
      : never
    : never]: OpMethod<Omit<In<O>, SessionRefKeys>, Out<O>>;
};
