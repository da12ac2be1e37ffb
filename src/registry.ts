/**
 * The operation registry: each operation is defined once (name, summary, zod input and output,
 * example, handler). Typed handles, the dispatcher, every adapter, /doc and the JSON Schema
 * catalog derive from these definitions.
 */
import { z } from "zod";
import type { ErrorCode } from "./errors.js";
import type { Services } from "./services.js";
import type { OpenedStream, StreamSource } from "./stream.js";

/** Where a request came from. Streaming transports can push event frames. */
export type Transport = "api" | "http" | "ws" | "stdio" | "mcp";

/**
 * A connection that carries pushed frames (WebSocket, stdio). The streams that stream
 * operations open through it are attached to it, drained by it, and closed with it.
 */
export interface Connection {
  /**
   * Takes over a stream a stream operation opened on `bus`; returns its id (the `sub` of its
   * frames). Throws `too_many_requests` past the connection's limit.
   */
  attach(source: StreamSource, bus: string): string;
  /** Closes stream `sub`; false when the connection has none by that id. */
  detach(sub: string): boolean;
}

/** What a handler receives besides its validated arguments. */
export interface OpContext {
  services: Services;
  /** Aborted when the caller goes away (HTTP disconnect, closed socket, abort signal). */
  signal: AbortSignal;
  transport: Transport;
  /** Present on streaming transports only. */
  connection?: Connection;
}

/** Group an operation belongs to; /doc is ordered by group. */
export type OpGroup = "bus" | "bash" | "session" | "task" | "continuity" | "meta";

/**
 * How an operation touches the world, declared once per operation and shown as MCP tool
 * annotations, in /doc and in the ops catalog. Every flag is set explicitly: MCP clients assume
 * the worst for a missing hint.
 */
export const opFlagsSchema = z.object({
  readOnly: z.boolean().describe("Changes nothing a caller relies on (read-only operations are also idempotent)"),
  destructive: z.boolean().describe("May delete or overwrite state, or run arbitrary code"),
  idempotent: z.boolean().describe("Repeating the call with the same arguments has no further effect"),
  openWorld: z.boolean().describe("Reaches outside tsclaw's own state: a model provider, or the host through bash"),
});
/** An operation's effect flags. */
export type OpFlags = z.infer<typeof opFlagsSchema>;

/**
 * Where an operation's typed handle method lives on a claw (local and remote alike):
 * `"group.method"` is `claw.group.method(args, opts?)`, a bare `"name"` is `claw.name(args, opts?)`,
 * and `null` means no method of its own (reached through `claw.call`, or served by a handle that
 * derivation cannot build, such as the unsubscribe function `subscribe` returns).
 */
export type HandleName = string | null;

/** One operation's definition. */
export interface OpDef<
  N extends string = string,
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  H extends HandleName = HandleName,
> {
  name: N;
  group: OpGroup;
  /** Effects of a call (read-only, destructive, idempotent, open-world). */
  flags: OpFlags;
  /** One line, shown in /doc and the catalog. */
  summary: string;
  /** Longer Markdown notes for /doc (semantics, errors). */
  notes?: string;
  /** Other names that dispatch to this operation. */
  aliases?: readonly string[];
  input: I;
  output: O;
  /** Example arguments; a test runs each example and expects success. */
  example: z.input<I>;
  /** Error codes this operation may return besides the generic ones (a typo does not compile). */
  errors?: readonly ErrorCode[];
  /** True when the operation only works on streaming transports (WebSocket, stdio). */
  streamingOnly?: boolean;
  /**
   * "call" (the default): the handler's value is the result. "stream": the operation opens a
   * stream (see `defineStreamOp`); `open` gives its head and source to in-process consumers.
   */
  kind?: "call" | "stream";
  /** Stream operations only: opens the stream (validated arguments), for in-process consumers. */
  open?: (args: z.output<I>, ctx: OpContext) => OpenedStream<unknown>;
  /** The typed handle method this operation gets on `claw` (see {@link HandleName}). */
  handle: H;
  handler: (args: z.output<I>, ctx: OpContext) => Promise<z.input<O>> | z.input<O>;
}

/** Defines an operation, keeping its literal name and schema types for the typed API. */
export function defineOp<const N extends string, I extends z.ZodType, O extends z.ZodType, const H extends HandleName>(
  def: OpDef<N, I, O, H>,
): OpDef<N, I, O, H> {
  return def;
}

/** Any operation definition, types erased. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOpDef = OpDef<string, any, any, HandleName>;
