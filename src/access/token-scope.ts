/**
 * What a scoped token may do. A token handed to bash (an agent run's, or one `bash` call's)
 * reaches only that run's own bus, session and task: the model provider sees what the script
 * prints, so whatever the script holds must not be the server's credential for running code.
 * Each operation declares its reach in its definition (`scope`, see registry.ts); one that
 * declares nothing is refused: bash, prompts, new sessions or tasks, other buses, listing,
 * trimming, memory, and minting stream tickets.
 */
import { z } from "zod";
import { ClawError } from "../core/errors.js";

/**
 * What a scoped token (the `CLAW_TOKEN` an agent's or a bash call's script gets) may do with an
 * operation, declared once in its definition: `"bus"` on the token's own buses only (its `bus`
 * argument), `"task"` on its own task only (`taskId`/`jobId`), `"session_read"` on its own
 * session only (the reference resolved to its id), `"any"` for anyone holding a token (the
 * catalog, the guide), `"approve"` only for a token whose scope grants deciding approvals (an
 * agent's own token never does: it must not approve its own commands). `"none"`, what an
 * operation that declares nothing gets, refuses it.
 */
export const opScopeSchema = z
  .enum(["bus", "task", "session_read", "approve", "any", "none"])
  .describe("What a scoped token (an agent's CLAW_TOKEN) may do with it; none: refused");
/** A scoped token's reach into one operation. */
export type OpScope = z.infer<typeof opScopeSchema>;

/** What the scope check reads of an operation's definition (the dispatcher passes the definitions). */
export interface ScopedOp {
  name: string;
  scope?: OpScope;
}

/** The reach of one scoped token. */
export interface TokenScope {
  /** Who the token belongs to, for error messages (e.g. `run run_… of session s_…`). */
  owner: string;
  /** Buses it may `out`, `read` and `subscribe` on. */
  buses: readonly string[];
  /**
   * Buses it may only `out` on: a shared bus (the default `thebus`, which every session that
   * names no bus of its own publishes to) where reading would show other sessions' events.
   * Default: none
   */
  outOnlyBuses?: readonly string[];
  /** The session whose read operations it may call. */
  sessionId?: string;
  /** That session's key (accepted wherever the session may be named by key). */
  sessionKey?: string;
  /** The task it may `get_task`, `check_task` and `task_update`. */
  taskId?: string;
  /** May decide approvals (operations of scope "approve"). Default: false */
  approve?: boolean;
}

/** The scopes in the order the refusal message lists their operations. */
const SCOPE_ORDER: readonly OpScope[] = ["bus", "task", "session_read", "any"];

/** An operation's declared scope ("none" when it declares nothing). */
export function scopeOf(op: Pick<ScopedOp, "scope">): OpScope {
  return op.scope ?? "none";
}

/**
 * The operations of `ops` a scoped token may call, for docs and messages: derived from each
 * operation's declared `scope`, grouped by scope, in registry order within a group.
 */
export function scopedOps(ops: readonly ScopedOp[]): string[] {
  return SCOPE_ORDER.flatMap((s) => ops.filter((op) => scopeOf(op) === s).map((op) => op.name));
}

type Args = Record<string, unknown>;

function refused(scope: TokenScope, what: string, callable: readonly string[]): ClawError {
  return new ClawError(
    "forbidden",
    `this token is scoped to ${scope.owner}: ${what}. It may call ${callable.join(", ")} on its own bus, session and task only`,
    { scope: scopeDetails(scope) },
  );
}

/** The scope as error details (ids and names, never a secret). */
export function scopeDetails(scope: TokenScope): Record<string, unknown> {
  return {
    buses: scope.buses,
    ...(scope.outOnlyBuses?.length ? { outOnlyBuses: scope.outOnlyBuses } : {}),
    ...(scope.sessionId ? { sessionId: scope.sessionId } : {}),
    ...(scope.taskId ? { taskId: scope.taskId } : {}),
  };
}

/** True when every session reference in `a` names the scope's session (and at least one does). */
function namesOwnSession(scope: TokenScope, a: Args): boolean {
  if (scope.sessionId === undefined) return false;
  const own = [scope.sessionId, scope.sessionKey].filter((v) => v !== undefined);
  const refs: [unknown, readonly unknown[]][] = [
    [a.sessionId, [scope.sessionId]],
    [a.sessionKey, [scope.sessionKey]],
    [a.session, own],
  ];
  let named = false;
  for (const [value, allowed] of refs) {
    if (value === undefined) continue;
    if (!allowed.includes(value)) return false;
    named = true;
  }
  return named;
}

/** True when every task reference in `a` names the scope's task (and at least one does). */
function namesOwnTask(scope: TokenScope, a: Args): boolean {
  if (scope.taskId === undefined) return false;
  const refs = [a.taskId, a.jobId].filter((v) => v !== undefined);
  return refs.length > 0 && refs.every((v) => v === scope.taskId);
}

/** True when authorizing `op` needs the id of the session its arguments name (see authorizeScoped). */
export function scopeNeedsSession(op: Pick<ScopedOp, "scope">): boolean {
  return scopeOf(op) === "session_read";
}

/**
 * Throws `forbidden` unless `scope` allows operation `op` (its definition) with validated
 * `args` (defaults applied). `sessionId` is the id the arguments' session reference resolves
 * to (looked up by the caller when scopeNeedsSession(op)), so a key that happens to equal
 * another session's id cannot reach that session; undefined refuses every session operation.
 * `callable` is what the refusal lists ({@link scopedOps} of the registered operations).
 */
export function authorizeScoped(
  scope: TokenScope,
  op: ScopedOp,
  args: unknown,
  sessionId: string | undefined,
  callable: readonly string[],
): void {
  const a = (args ?? {}) as Args;
  const reach = scopeOf(op);
  if (reach === "any") return;
  if (reach === "bus") {
    const bus = typeof a.bus === "string" ? a.bus : "thebus";
    if (scope.buses.includes(bus)) return;
    if (scope.outOnlyBuses?.includes(bus)) {
      if (op.name === "out") return;
      throw refused(
        scope,
        `bus "${bus}" is shared by every session that names no bus of its own: it may publish there, not read it (its own session's events: get_messages, get_state; or start the session with a bus of its own)`,
        callable,
      );
    }
    throw refused(
      scope,
      `bus "${bus}" is not its bus (${[...scope.buses, ...(scope.outOnlyBuses ?? [])].join(", ")})`,
      callable,
    );
  }
  if (reach === "task") {
    if (!namesOwnTask(scope, a))
      throw refused(scope, scope.taskId ? `only task ${scope.taskId} is its task` : "it belongs to no task", callable);
    return;
  }
  if (reach === "session_read") {
    if (!namesOwnSession(scope, a) || sessionId === undefined || sessionId !== scope.sessionId)
      throw refused(
        scope,
        scope.sessionId ? `only session ${scope.sessionId} is its session` : "it belongs to no session",
        callable,
      );
    return;
  }
  if (reach === "approve") {
    if (scope.approve !== true) throw refused(scope, `deciding approvals needs the scope "approve"`, callable);
    return;
  }
  throw refused(scope, `operation ${op.name} is outside its scope`, callable);
}
