/**
 * The dispatcher: finds an operation by name or alias, validates its arguments with its zod
 * schema, runs its handler and wraps the outcome in the wire envelope. Every adapter and every
 * typed handle goes through it.
 */
import type { z } from "zod";
import { assertLive, type ScopedGrant } from "../access/scoped-tokens.js";
import { authorizeScoped, scopedOps, scopeNeedsSession } from "../access/token-scope.js";
import type { SessionRef } from "../agent/session-schemas.js";
import { ClawError, toClawError } from "../core/errors.js";
import { linkSignals } from "../core/link-signals.js";
import type { OpenedStream } from "../core/stream.js";
import { closest } from "../core/suggest.js";
import { errorResponse, idOf, okResponse, parseRequest, type Response } from "../core/wire.js";
import type { AnyOpDef, Connection, OpContext, OpMiddleware, Services, Transport } from "../ops/registry.js";

/** Per-call context an adapter supplies. */
export interface CallContext {
  transport?: Transport;
  signal?: AbortSignal;
  connection?: Connection;
  /** Names the call for `cancel_call` (from the request envelope). */
  callId?: string;
  /**
   * Present when the caller presented a scoped token (an agent run's or a bash call's): the
   * call must fall inside its scope, and the token must still be live.
   */
  grant?: ScopedGrant;
}

/** A zod issue in words a caller acts on: zod says "expected nonoptional, received undefined" for a missing field. */
function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && / received undefined$/.test(issue.message)) {
    return issue.expected === "nonoptional" || issue.expected === "unknown"
      ? "required"
      : `required (${issue.expected})`;
  }
  return issue.message;
}

/** Converts zod issues to `invalid_args`, naming each offending field. */
export function invalidArgs(op: string, error: z.ZodError): ClawError {
  const issues = error.issues.map((i) => ({ path: i.path.map(String).join("."), message: issueText(i) }));
  const summary = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  return new ClawError("invalid_args", `invalid arguments for ${op}: ${summary}`, { issues });
}

/** Runs one validated call of an operation: its handler, wrapped by the middleware that applies. */
type Runner = (args: unknown, ctx: OpContext) => unknown;

/** The handler of `op` wrapped by each middleware that applies to it (the first one outermost). */
function runnerOf(op: AnyOpDef, middleware: readonly OpMiddleware[]): Runner {
  let run: Runner = (args, ctx) => op.handler(args, ctx);
  for (const m of [...middleware].reverse()) {
    if (!m.applies(op)) continue;
    const next = run;
    run = (args, ctx) => m.around(op, args, ctx, async () => next(args, ctx));
  }
  return run;
}

/** The reason of the signals shutdown aborts: tells a call cut short by shutdown from one its caller ended. */
const SHUT_DOWN = new ClawError("shutting_down", "the server is shutting down");

/** Dispatches requests to registered operations. */
export class Dispatcher {
  private readonly byName = new Map<string, AnyOpDef>();
  private readonly runners = new Map<AnyOpDef, Runner>();
  /** What a scoped token may call, listed in its refusals. */
  private readonly scopedOps: readonly string[];
  private closing = false;
  /** The claw's start while it has not resolved (see startAfter). */
  private starting: Promise<void> | undefined;
  /** Signals of calls in flight; aborted at shutdown so long waits and bash runs end and their callers get an answer. */
  private readonly linked = new Set<AbortController>();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    ops: readonly AnyOpDef[],
    private readonly services: () => Services,
    private readonly validateOutputs: boolean,
    /** Wraps the calls of the operations each applies to (telemetry), outermost first. */
    middleware: readonly OpMiddleware[] = [],
  ) {
    this.scopedOps = scopedOps(ops);
    for (const op of ops) {
      this.runners.set(op, runnerOf(op, middleware));
      for (const name of [op.name, ...(op.aliases ?? [])]) {
        if (this.byName.has(name)) throw new Error(`operation name ${name} is registered twice`);
        this.byName.set(name, op);
      }
    }
  }

  /** Refuses new calls from now on (`shutting_down`). */
  stop(): void {
    this.closing = true;
    for (const c of this.linked) c.abort(SHUT_DOWN);
  }

  /** Resolves when no call is running (or after `timeoutMs`). */
  idle(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * A signal aborted by the caller's own signal (if any), a `cancel_call`, or shutdown.
   * @internal For {@link CallScope}.
   */
  linkSignal(own: AbortSignal | undefined, cancel: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
    // One controller per call (never a listener on a shared signal, which would pile up).
    const link = linkSignals(own, cancel);
    if (this.closing && !link.signal.aborted) link.controller.abort(SHUT_DOWN); // made lazily: shutdown may have come first
    this.linked.add(link.controller);
    return {
      signal: link.signal,
      release: () => {
        this.linked.delete(link.controller);
        link.release();
      },
    };
  }

  /** `unknown_op` naming the closest operations in `details.suggestions`. */
  private unknownOp(name: string): ClawError {
    const suggestions = closest(name, this.byName.keys());
    const meant = suggestions.length > 0 ? ` (did you mean ${suggestions.join(", ")}?)` : "";
    return new ClawError("unknown_op", `unknown operation "${name}"${meant}; the op "ops" (or GET /doc) lists them`, {
      op: name,
      suggestions,
    });
  }

  /** Throws unless a scoped token's grant is live and covers this call (no session lookup). */
  private authorize(grant: ScopedGrant, op: AnyOpDef, args: unknown, sessionId?: string): void {
    assertLive(grant);
    authorizeScoped(grant.scope, op, args, sessionId, this.scopedOps);
  }

  /** authorize for an operation on a session: the reference is resolved to its id first. */
  private async authorizeSession(grant: ScopedGrant, op: AnyOpDef, args: unknown): Promise<void> {
    assertLive(grant);
    // An unknown session (undefined) is not the scope's either.
    const sessionId = (await this.services().sessions.store.find(args as SessionRef))?.sessionId;
    this.authorize(grant, op, args, sessionId);
  }

  /**
   * Calls wait for `ready` (the claw's asynchronous start: identity, restart recovery) before
   * they run, and fail with its error if it fails. Once it has resolved, calls pay nothing.
   */
  startAfter(ready: Promise<void>): void {
    const pending = ready.then(() => {
      if (this.starting === pending) this.starting = undefined;
    });
    pending.catch(() => {}); // surfaced by each call that awaits it
    this.starting = pending;
  }

  /**
   * Runs an operation by name and returns its result; rejects with a ClawError. `callId` names
   * the call for `cancel_call` (default: the context's).
   */
  call(name: string, args: unknown, ctx: CallContext = NO_CONTEXT, callId = ctx.callId): Promise<unknown> {
    // Started, and no scoped token to check: no async frame of its own. Its generator, registers
    // and await were a quarter of what each in-process `out` allocated (~680 of ~2 500 bytes).
    if (this.starting || ctx.grant) return this.callChecked(name, args, ctx, callId);
    try {
      const op = this.opNamed(name);
      return this.run(op, this.parse(op, args), ctx, callId);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** `call` after the claw's start, with a scoped token's check. */
  private async callChecked(name: string, args: unknown, ctx: CallContext, callId: string | undefined) {
    if (this.starting) await this.starting;
    const op = this.opNamed(name);
    const data = this.parse(op, args);
    if (ctx.grant) {
      if (scopeNeedsSession(op)) await this.authorizeSession(ctx.grant, op, data);
      else this.authorize(ctx.grant, op, data);
    }
    return this.run(op, data, ctx, callId);
  }

  /** The operation called `name` (or an alias); throws while shutting down or for an unknown name. */
  private opNamed(name: string): AnyOpDef {
    if (this.closing)
      throw new ClawError("shutting_down", "the server is shutting down; retry against the new process");
    const op = this.byName.get(name);
    if (!op) throw this.unknownOp(name);
    return op;
  }

  /** The arguments as the operation's schema outputs them; throws `invalid_args`. */
  private parse(op: AnyOpDef, args: unknown): unknown {
    const parsed = op.input.safeParse(args ?? {});
    if (!parsed.success) throw invalidArgs(op.name, parsed.error);
    return parsed.data;
  }

  /** Runs a validated call through its middleware and handler; never throws (it rejects). */
  private run(op: AnyOpDef, data: unknown, ctx: CallContext, callId: string | undefined): Promise<unknown> {
    const services = this.services();
    const scope = new CallScope(
      this,
      services,
      ctx,
      callId !== undefined ? services.calls.register(callId) : undefined,
    );
    // Once the database files are gone, nothing is acknowledged (the guard's timer notices
    // within 200 ms; bus commits stat on their own): before the call and again before the answer.
    const storage = op.group === "meta" ? undefined : services.storage;
    let result: unknown;
    try {
      storage?.assertAvailable();
      this.inFlight++;
      try {
        result = this.runners.get(op)!(data, scope);
      } catch (err) {
        return Promise.reject(this.ended(scope, err));
      }
    } catch (err) {
      scope.release();
      return Promise.reject(err);
    }
    return Promise.resolve(result).then(
      (value) => this.answer(op, storage, scope, value),
      (err) => Promise.reject(this.ended(scope, err)),
    );
  }

  /** A call's result once its handler resolved: storage checked again, outputs validated if asked. */
  private answer(op: AnyOpDef, storage: Services["storage"] | undefined, scope: CallScope, value: unknown): unknown {
    try {
      storage?.assertAvailable();
      // A wait that shutdown ended returns what it has (a read's empty page, a snapshot): that is
      // not the answer the caller waited for, and the next process would give it one.
      if (scope.cutByShutdown)
        throw new ClawError("shutting_down", "the server shut down during this call; retry against the new process");
    } catch (err) {
      throw this.ended(scope, err);
    }
    this.ended(scope);
    if (!this.validateOutputs) return value;
    const checked = op.output.safeParse(value);
    if (!checked.success) {
      throw new ClawError("internal", `result of ${op.name} does not match its schema: ${checked.error.message}`);
    }
    return checked.data;
  }

  /** Ends a call that ran (its scope released, the in-flight count down); returns the error to report, if any. */
  private ended(scope: CallScope, err?: unknown): unknown {
    scope.release();
    if (--this.inFlight === 0 && this.idleWaiters.length > 0) {
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
    // A call cut short by shutdown is worth retrying against the next process; "cancelled" is
    // for callers that went away, and it tells a client not to retry.
    if (this.closing && err instanceof ClawError && err.code === "cancelled")
      return new ClawError("shutting_down", "the server shut down during this call; retry against the new process", {
        cut: err.message,
      });
    return err;
  }

  /**
   * Opens a stream operation in-process (the local subscribe handles, the SSE route): validates
   * its arguments and returns its head and its source, not started. Synchronous, so a stream
   * opened before an `out` is called sees that out, as on every transport. Throws ClawError.
   */
  openStream(name: string, args: unknown, ctx: CallContext = {}): OpenedStream<unknown> {
    if (this.closing)
      throw new ClawError("shutting_down", "the server is shutting down; retry against the new process");
    const op = this.byName.get(name);
    if (!op) throw this.unknownOp(name);
    if (!op.open) throw new ClawError("invalid_request", `${op.name} is not a stream operation; call it`);
    const parsed = op.input.safeParse(args ?? {});
    if (!parsed.success) throw invalidArgs(op.name, parsed.error);
    // Stream operations are bus operations: their scope check needs no session lookup.
    if (ctx.grant) this.authorize(ctx.grant, op, parsed.data);
    const services = this.services();
    services.storage.assertAvailable();
    return op.open(parsed.data, {
      services,
      signal: ctx.signal ?? new AbortController().signal,
      transport: ctx.transport ?? "api",
      connection: ctx.connection,
    });
  }

  /** Dispatches a parsed request value (any JSON) and returns the response envelope. Never throws. */
  async dispatch(value: unknown, ctx: CallContext = NO_CONTEXT): Promise<Response> {
    const id = idOf(value);
    try {
      const req = parseRequest(value);
      // callId apart, never a copy of ctx: a copy would lose an adapter's lazy `signal` getter.
      return okResponse(req.id ?? null, await this.call(req.op, req.args, ctx, req.callId ?? ctx.callId));
    } catch (err) {
      const wireErr = toClawError(err);
      if (wireErr.code === "internal" && !(err instanceof ClawError)) {
        this.services().config.log(`tsclaw: internal error: ${(err as Error)?.stack ?? String(err)}`);
      }
      return errorResponse(id, wireErr);
    }
  }
}

const NO_CONTEXT: CallContext = Object.freeze({});

/**
 * The context one call's handler gets. Its signal is linked on first use: most calls (out,
 * get_task, …) never look at it, and an AbortController per call halves the throughput of
 * `out` (bench/bus.ts: 0.31 vs 0.7). One object per call, no closures: `out` makes hundreds of
 * thousands of them a second.
 */
class CallScope implements OpContext {
  readonly transport: Transport;
  readonly connection: Connection | undefined;
  private link: { signal: AbortSignal; release(): void } | undefined;

  constructor(
    private readonly dispatcher: Dispatcher,
    readonly services: Services,
    private readonly ctx: CallContext,
    private readonly named: { signal: AbortSignal; release(): void } | undefined,
  ) {
    this.transport = ctx.transport ?? "api";
    this.connection = ctx.connection;
  }

  get signal(): AbortSignal {
    // The adapter's signal is lazy too: read only now.
    this.link ??= this.dispatcher.linkSignal(this.ctx.signal, this.named?.signal);
    return this.link.signal;
  }

  /** True when shutdown aborted this call's signal (not its caller, nor `cancel_call`). */
  get cutByShutdown(): boolean {
    return this.link?.signal.reason === SHUT_DOWN;
  }

  /** Unlinks the signal and forgets the call's name; once, when the call ends. */
  release(): void {
    this.link?.release();
    this.named?.release();
  }
}
