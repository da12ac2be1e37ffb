import type { SqlValue } from "./sql.js";

/**
 * A SQL WHERE clause built from optional filters, so a list query reads as one line per filter
 * instead of a push to two parallel arrays. Column names and clauses come from code, never from
 * a caller; only values travel as parameters.
 */
export class Where {
  private readonly clauses: string[] = [];
  /** The values of the `?` placeholders, in order. */
  readonly params: SqlValue[] = [];

  /** Adds `column = ?` when `value` is defined (an unset filter matches everything). */
  eq(column: string, value: SqlValue | undefined): this {
    return value === undefined ? this : this.add(`${column} = ?`, value);
  }

  /** Adds a clause with its placeholder values. */
  add(clause: string, ...params: SqlValue[]): this {
    this.clauses.push(clause);
    this.params.push(...params);
    return this;
  }

  /** A copy to extend without changing this one. */
  clone(): Where {
    const copy = new Where();
    copy.clauses.push(...this.clauses);
    copy.params.push(...this.params);
    return copy;
  }

  /** `WHERE a AND b`, or the empty string when there is no condition. */
  get sql(): string {
    return this.clauses.length === 0 ? "" : `WHERE ${this.clauses.join(" AND ")}`;
  }
}
