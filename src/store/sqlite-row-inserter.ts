/**
 * Inserts many rows of one table through multi-row `INSERT … VALUES (…), (…)` statements. A
 * statement's step and reset, and the call from JavaScript into SQLite, cost about as much as
 * binding a row's values: 100 rows a statement cut a batch of small events' inserts by a third
 * against one statement a row (better-sqlite3, 100 000 rows in transactions of 1 000).
 */
import type Database from "better-sqlite3";

/** Rows per statement, largest first: a batch goes as chunks of 100, then of 10, then single rows. */
const CHUNKS = [100, 10, 1] as const;

/**
 * Rows of one table, buffered and inserted by the fewest statements. Used inside one synchronous
 * transaction at a time (better-sqlite3's are): `flush` before the transaction ends.
 */
export class RowInserter {
  private readonly statements: { rows: number; statement: Database.Statement }[];
  private values: unknown[] = [];
  private rows = 0;

  /**
   * `insert` is the statement up to its values (`INSERT INTO t (a, b) VALUES`), `row` one row's
   * placeholders (`(?, ?)`) taking `width` values.
   */
  constructor(
    db: Database.Database,
    insert: string,
    row: string,
    private readonly width: number,
  ) {
    this.statements = CHUNKS.map((rows) => ({
      rows,
      statement: db.prepare(`${insert} ${Array.from({ length: rows }, () => row).join(", ")}`),
    }));
  }

  /** Adds one row: `width` values, in the order of the placeholders. */
  add(...row: unknown[]): void {
    for (let i = 0; i < this.width; i++) this.values.push(row[i]);
    if (++this.rows === CHUNKS[0]) this.flush();
  }

  /** Inserts every row added so far. */
  flush(): void {
    const { values, width } = this;
    try {
      let from = 0;
      for (const { rows, statement } of this.statements) {
        const size = rows * width;
        for (; values.length - from >= size; from += size) {
          statement.run(from === 0 && values.length === size ? values : values.slice(from, from + size));
        }
      }
    } finally {
      this.discard();
    }
  }

  /** Forgets the rows added and not inserted (their transaction failed before the flush). */
  discard(): void {
    // A new buffer, not a cleared one: a cleared array keeps its backing store, and nothing of a
    // batch's payloads should outlive it.
    this.values = [];
    this.rows = 0;
  }
}
