/**
 * Idempotency keys of run_task, task_create and memory_add, stored in the core `idempotency`
 * table: the same key with the same arguments replays the original result; the same key with
 * other arguments is `idempotency_conflict`.
 */
import { createHash } from "node:crypto";
import { ClawError } from "../core/errors.js";
import type { Sql } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** SHA-256 of the canonical JSON of `args`. */
export function argsHash(args: unknown): string {
  return createHash("sha256").update(canonicalJson(args)).digest("hex");
}

/** The outcome of an idempotent call. */
export interface Idempotent<T> {
  result: T;
  replayed: boolean;
}

/**
 * The recorded result of (scope, key), or undefined when there is none; `idempotency_conflict`
 * when the key was used with other arguments. `args` (without the key itself) identify the request.
 */
export async function recorded<T>(q: Sql, scope: string, key: string, args: unknown): Promise<T | undefined> {
  const prior = await q.get<Pick<Row<"idempotency">, "args_hash" | "result">>(
    "SELECT args_hash, result FROM idempotency WHERE scope = ? AND key = ?",
    [scope, key],
  );
  if (!prior) return undefined;
  if (prior.args_hash !== argsHash(args)) {
    throw new ClawError(
      "idempotency_conflict",
      `idempotencyKey "${key}" was already used for ${scope} with different arguments; use a new key for a new request`,
      { scope, idempotencyKey: key },
    );
  }
  return JSON.parse(prior.result) as T;
}

/**
 * Inside a transaction (`q`): replays the record of (scope, key), or runs `create` and records
 * its result, both in that transaction, so a failure leaves neither behind.
 */
export async function onceIn<T>(
  q: Sql,
  scope: string,
  key: string,
  args: unknown,
  create: () => Promise<T>,
): Promise<Idempotent<T>> {
  const prior = await recorded<T>(q, scope, key, args);
  if (prior !== undefined) return { result: prior, replayed: true };
  const result = await create();
  await q.run("INSERT INTO idempotency (scope, key, args_hash, result, created_at) VALUES (?, ?, ?, ?, ?)", [
    scope,
    key,
    argsHash(args),
    JSON.stringify(result),
    Date.now(),
  ]);
  return { result, replayed: false };
}

/** True for a unique-key violation (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_PRIMARYKEY/UNIQUE). */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

/**
 * Runs `attempt` (a transaction around {@link onceIn}) and, when a concurrent request with the
 * same key committed its record first (the insert hit the key), once more: that run replays it.
 */
export async function raceOnce<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return attempt();
  }
}

/** Idempotency records. */
export class IdempotencyStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Runs `create` once per (scope, key). `args` (without the key itself) identify the request.
   * `create` runs in the same transaction as the record (on the executor it is given), so a
   * failure leaves neither behind. Without a key, `create` simply runs.
   */
  async once<T>(
    scope: string,
    key: string | undefined,
    args: unknown,
    create: (q: Sql) => Promise<T>,
  ): Promise<Idempotent<T>> {
    if (key === undefined) return { result: await create(this.sql), replayed: false };
    return raceOnce(() => this.sql.tx((q) => onceIn(q, scope, key, args, () => create(q))));
  }
}
