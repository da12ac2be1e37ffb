/**
 * Idempotency keys of run_task, task_create and memory_add, stored in the core `idempotency`
 * table: the same key with the same arguments replays the original result; the same key with
 * other arguments is `idempotency_conflict`.
 */
import { createHash } from "node:crypto";
import { ClawError } from "../errors.js";
import type { Db } from "../store/db.js";

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

/** Idempotency records. */
export class IdempotencyStore {
  private readonly sql;

  constructor(private readonly db: Db) {
    this.sql = {
      get: db.prepare<[string, string], { args_hash: string; result: string }>(
        "SELECT args_hash, result FROM idempotency WHERE scope = ? AND key = ?",
      ),
      put: db.prepare("INSERT INTO idempotency (scope, key, args_hash, result, created_at) VALUES (?, ?, ?, ?, ?)"),
    };
  }

  /**
   * Runs `create` once per (scope, key). `args` (without the key itself) identify the request.
   * `create` runs in the same transaction as the record, so a failure leaves neither behind.
   * Without a key, `create` simply runs.
   */
  once<T>(scope: string, key: string | undefined, args: unknown, create: () => T): Idempotent<T> {
    if (key === undefined) return { result: create(), replayed: false };
    const hash = argsHash(args);
    return this.db.transaction((): Idempotent<T> => {
      const prior = this.sql.get.get(scope, key);
      if (prior) {
        if (prior.args_hash !== hash) {
          throw new ClawError(
            "idempotency_conflict",
            `idempotencyKey "${key}" was already used for ${scope} with different arguments; use a new key for a new request`,
            { scope, idempotencyKey: key },
          );
        }
        return { result: JSON.parse(prior.result) as T, replayed: true };
      }
      const result = create();
      this.sql.put.run(scope, key, hash, JSON.stringify(result), Date.now());
      return { result, replayed: false };
    })();
  }
}
