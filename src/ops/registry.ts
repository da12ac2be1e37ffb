/**
 * The operation registry: each operation is defined once (name, summary, zod input and output,
 * example, handler). Typed handles, the dispatcher, every adapter, /doc and the JSON Schema
 * catalog derive from these definitions.
 */
import { z } from "zod";
import type { ScopedTokens } from "../access/scoped-tokens.js";
import type { StreamTickets } from "../access/stream-tickets.js";
import type { OpScope } from "../access/token-scope.js";
import type { SessionService } from "../agent/session-service.js";
import type { ApprovalService } from "../approvals/approval-service.js";
import type { BashRunner } from "../bash/bash-runner.js";
import type { BusService } from "../bus/bus-service.js";
import type { ClawConfig } from "../config/claw-config.js";
import type { CallRegistry } from "../core/call-registry.js";
import type { ErrorCode } from "../core/errors.js";
import type { OpenedStream, StreamSource } from "../core/stream.js";
import type { Identity } from "../nodes/identity.js";
import type { NodeService } from "../nodes/node-service.js";
import type { ScheduleService } from "../schedules/schedule-service.js";
import type { Db } from "../store/db.js";
import type { Sql } from "../store/sql.js";
import type { StorageGuard } from "../store/storage-guard.js";
import type { MemoryService } from "../tasks/memory-service.js";
import type { TaskService } from "../tasks/task-service.js";
import type { TelemetryNote } from "../tasks/telemetry.js";

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

/** The services an operation handler can reach (`ctx.services`), built once per claw by createClaw. */
export interface Services {
  config: ClawConfig;
  /** The SQLite connection (being replaced by `sql`, which both stores implement). */
  db: Db;
  /** The storage every service queries: SQLite or PostgreSQL. */
  sql: Sql;
  identity: Identity;
  /** This process as a node of the database: its id, heartbeat, and every node (list_nodes). */
  nodes: NodeService;
  bus: BusService;
  bash: BashRunner;
  sessions: SessionService;
  tasks: TaskService;
  /** Approvals of the agent's bash calls (approval_list, approval_get, approval_decide). */
  approvals: ApprovalService;
  memory: MemoryService;
  /** Schedules, their firings, and this node's scheduler. */
  schedules: ScheduleService;
  /** Tokens minted for runs and bash calls (handed to their scripts as CLAW_TOKEN). */
  tokens: ScopedTokens;
  /** Single-use tickets for GET streams (`stream_ticket`). */
  tickets: StreamTickets;
  /** Whether the database files are still the ones opened. */
  storage: StorageGuard;
  /** Calls in flight named by a callId (cancel_call). */
  calls: CallRegistry;
  /** Every registered operation (for `ops`, `doc`, server_identity). */
  ops: readonly AnyOpDef[];
}

/** Group an operation belongs to; /doc is ordered by group. */
export type OpGroup = "bus" | "bash" | "session" | "task" | "approval" | "schedule" | "continuity" | "meta";

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

// What a scoped token may do with an operation is the access layer's (a leaf): defined there.
export { type OpScope, opScopeSchema } from "../access/token-scope.js";

/**
 * Where an operation's typed handle method lives on a claw (local and remote alike):
 * `"group.method"` is `claw.group.method(args, opts?)`, a bare `"name"` is `claw.name(args, opts?)`,
 * and `null` means no method of its own (reached through `claw.call`, or served by a handle that
 * derivation cannot build, such as the unsubscribe function `subscribe` returns).
 */
export type HandleName = string | null;

/**
 * What an operation's request telemetry notes (see `OpDef.telemetry`). The telemetry middleware
 * already derives the common fields: the task id from `taskId`/`jobId` in the arguments, and the
 * task id, status, terminal retrieval, duplicate (`replayed`), `pollNumber` and `waitedMs` from
 * the result (or its `task`). These add what it cannot guess.
 */
export interface OpTelemetry<A = unknown, R = unknown> {
  /** Noted from the arguments before the call, so a failed call keeps them. */
  fromArgs?: (args: A) => TelemetryNote;
  /** Noted from the result of a successful call, after the derived fields. */
  fromResult?: (result: R, args: A) => TelemetryNote;
}

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
  /** What a scoped token may do with it (see {@link opScopeSchema}). Default: "none" (refused) */
  scope?: OpScope;
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
  /**
   * Record every call in the request telemetry (`task_telemetry`): `true` for the derived
   * fields, or what to note besides. The dispatcher's middleware does the recording, so the
   * handler has no telemetry code.
   */
  telemetry?: true | OpTelemetry<z.output<I>, z.input<O>>;
  handler: (args: z.output<I>, ctx: OpContext) => Promise<z.input<O>> | z.input<O>;
}

/** Defines an operation, keeping its literal name and schema types for the typed API. */
export function defineOp<const N extends string, I extends z.ZodType, O extends z.ZodType, const H extends HandleName>(
  def: OpDef<N, I, O, H>,
): OpDef<N, I, O, H> {
  return def;
}

/** Any operation definition, types erased. */
// biome-ignore lint/suspicious/noExplicitAny: erasing the schema types is the point of this alias
export type AnyOpDef = OpDef<string, any, any, HandleName>;

/**
 * Registry-level middleware: wraps the calls of the operations it applies to, for every
 * transport alike. Whether it applies is decided once per operation when the dispatcher is
 * built, so operations it does not wrap pay nothing per call.
 */
export interface OpMiddleware {
  /** True when this middleware wraps calls of `op`. */
  applies(op: AnyOpDef): boolean;
  /** Runs one call: `next()` runs the rest of the chain (in the end, the handler). */
  around(op: AnyOpDef, args: unknown, ctx: OpContext, next: () => Promise<unknown>): Promise<unknown>;
}
