/**
 * Stream operations: defined once, like any operation, but their `open` returns a head (what
 * the answer says) and a typed source of events instead of a result. The registry builds the
 * handler every transport dispatches: on a streaming connection (WebSocket, stdio) it attaches
 * the source to the connection and answers with the stream's id; elsewhere the stream cannot be
 * carried and the answer says where to go instead. In-process consumers (the local handles, the
 * SSE route) open the source directly through the dispatcher.
 */
import type { z } from "zod";
import { ClawError } from "../core/errors.js";
import type { OpenedStream } from "../core/stream.js";
import type { HandleName, OpContext, OpDef } from "./registry.js";

/** What a stream operation's `open` returns: every field of its answer but `sub`, and the source. */
export type StreamOpen<I extends z.ZodType, O extends z.ZodType> = (
  args: z.output<I>,
  ctx: OpContext,
) => OpenedStream<Omit<z.input<O>, "sub"> & { bus: string }>;

/** A stream operation's definition as written. */
export interface StreamOpSpec<N extends string, I extends z.ZodType, O extends z.ZodType, H extends HandleName>
  extends Omit<OpDef<N, I, O, H>, "handler" | "streamingOnly" | "kind" | "open"> {
  /** The error message for a transport that cannot carry the stream (HTTP `/do`, MCP). */
  unsupported: string;
  open: StreamOpen<I, O>;
}

/** A registered stream operation. */
export type StreamOpDef<N extends string, I extends z.ZodType, O extends z.ZodType, H extends HandleName> = OpDef<
  N,
  I,
  O,
  H
> & { kind: "stream"; open: StreamOpen<I, O> };

/** Defines a stream operation (see the file comment). */
export function defineStreamOp<
  const N extends string,
  I extends z.ZodType,
  O extends z.ZodType,
  const H extends HandleName,
>(spec: StreamOpSpec<N, I, O, H>): StreamOpDef<N, I, O, H> {
  const { unsupported, ...def } = spec;
  return {
    ...def,
    kind: "stream",
    streamingOnly: true,
    handler: async (args, ctx) => {
      const connection = ctx.connection;
      if (!connection) throw new ClawError("unsupported_on_transport", unsupported);
      const { head, source } = spec.open(args, ctx);
      try {
        const answer = await head;
        return { sub: connection.attach(source, answer.bus), ...answer } as z.input<O>;
      } catch (err) {
        source.close(); // refused (too many streams): nothing may keep listening
        throw err;
      }
    },
  };
}
