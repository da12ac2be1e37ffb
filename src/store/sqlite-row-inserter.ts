/**
 * Inserts many rows of one table through multi-row `INSERT … VALUES (…), (…)` statements. A
 * statement's step and reset, and the call from JavaScript into SQLite, cost about as much as
 * binding a row's values: 100 rows a statement cut a batch of small events' inserts by a third
 * against one statement a row (better-sqlite3, 100 000 rows in transactions of 1 000).
 */
import type Database from "better-sqlite3";
import { fixedChunks } from "./fixed-chunks.js";

/** Rows per statement, largest first: a batch goes as chunks of 100, then of 10, then single rows. */
const CHUNKS = [100, 10, 1] as const;

/** The prepared statements of one table's multi-row insert. */
export class RowInserter {
  /** Values per row: the placeholders in one row. */
  private readonly width: number;
  /** The statement of each chunk size, by its rows. */
  private readonly statements: Map<number, Database.Statement>;

  /** `insert` is the statement up to its values (`INSERT INTO t (a, b) VALUES`), `row` one row's placeholders (`(?, ?)`). */
  constructor(db: Database.Database, insert: string, row: string) {
    this.width = row.split("?").length - 1;
    this.statements = new Map(
      CHUNKS.map((rows) => [rows, db.prepare(`${insert} ${Array.from({ length: rows }, () => row).join(", ")}`)]),
    );
  }

  /**
   * Inserts the rows whose values are `values` (row after row, each row's in the order of its
   * placeholders) by the fewest statements. Inside a transaction, all or none of them stay.
   */
  insert(values: readonly unknown[]): void {
    if (values.length % this.width !== 0) throw new RangeError(`${values.length} values are not rows of ${this.width}`);
    let from = 0;
    for (const rows of fixedChunks(values.length / this.width, CHUNKS)) {
      const size = rows * this.width;
      this.statements.get(rows)!.run(size === values.length ? values : values.slice(from, from + size));
      from += size;
    }
  }
}
