/**
 * Builds the handle methods from catalog entries: every operation that names a handle gets
 * `claw.group.method(args, opts?)` (or `claw.name(...)`), calling it by name; a stream
 * operation gets the method its claw builds for streams (a callback subscription or an async
 * iterator). createClaw derives from its own registry, connectClaw from the server's catalog, so
 * both have the same methods. Imports nothing at run time: it runs in browsers too.
 */
import type { CallContext } from "../dispatch/dispatch.js";

/** What derivation needs of a catalog entry. */
export interface HandleEntry {
  name: string;
  handle: string | null;
  streamingOnly: boolean;
  /** "stream" for stream operations. Default: "stream" when streamingOnly, else "call" (older servers) */
  kind?: "call" | "stream";
  /** JSON Schema of the input; its `properties` tell whether the operation takes a session reference. */
  input: Record<string, unknown>;
}

/** Calls an operation by name (untyped; the handle types put the types back). */
export type UntypedCall = (name: string, args: unknown, ctx?: CallContext) => Promise<unknown>;

/** The method of a call operation. */
export type CallMethod = (args?: object, opts?: CallContext) => Promise<unknown>;

/** The method of a stream operation (a callback subscription or an async iterator). */
export type StreamFn = (args?: object, handler?: (event: never) => void) => unknown;

/** Builds the handle method of stream operation `name` (local: in-process; remote: over the socket). */
export type StreamFactory = (name: string) => StreamFn;

/** A derived method, by name. */
export type DerivedMethod = CallMethod | StreamFn;

/** The derived methods: top-level ones, groups, and which session methods take a session reference. */
export interface Derived {
  top: Record<string, DerivedMethod>;
  groups: Record<string, Record<string, DerivedMethod>>;
  /** Session-group methods whose operation takes `sessionId`/`sessionKey`: a session handle binds them. */
  sessionBound: string[];
}

function takesSession(entry: HandleEntry): boolean {
  const props = entry.input.properties as Record<string, unknown> | undefined;
  return props !== undefined && "sessionId" in props;
}

/** Derives handle methods from the catalog: calls through `call`, streams through `stream`. */
export function deriveHandles(entries: readonly HandleEntry[], call: UntypedCall, stream: StreamFactory): Derived {
  const derived: Derived = { top: {}, groups: {}, sessionBound: [] };
  for (const entry of entries) {
    if (entry.handle === null) continue;
    const isStream = (entry.kind ?? (entry.streamingOnly ? "stream" : "call")) === "stream";
    const method: DerivedMethod = isStream
      ? stream(entry.name)
      : (args: object = {}, opts?: CallContext) => call(entry.name, args, opts);
    const dot = entry.handle.indexOf(".");
    if (dot < 0) {
      if (derived.top[entry.handle]) throw new Error(`handle ${entry.handle} is claimed twice`);
      derived.top[entry.handle] = method;
      continue;
    }
    const group = entry.handle.slice(0, dot);
    const name = entry.handle.slice(dot + 1);
    derived.groups[group] ??= {};
    if (derived.groups[group][name]) throw new Error(`handle ${entry.handle} is claimed twice`);
    derived.groups[group][name] = method;
    if (group === "session" && !isStream && takesSession(entry)) derived.sessionBound.push(name);
  }
  return derived;
}
