/**
 * The SQLite implementation of Sql over one better-sqlite3 connection. Statements are prepared
 * once per text. better-sqlite3 runs synchronously, so the only thing an asynchronous
 * transaction must guard against is another caller's statement landing inside it while it
 * awaits: while a transaction is open, every statement from outside it (and `exclusive` work
 * such as the bus's group commit) waits for it to end. Outside a transaction a statement runs at
 * once, in the caller's turn.
 */
import type Database from "better-sqlite3";
import type { Db } from "./db.js";
import type { Sql, SqlRunResult, SqlValue } from "./sql.js";

type Statement = Database.Statement<unknown[], unknown>;

/** Sql over a better-sqlite3 connection, plus `exclusive` for synchronous work on it. */
export class SqliteSql implements Sql {
  readonly dialect = "sqlite" as const;
  private readonly statements = new Map<string, Statement>();
  private busy = false;
  private readonly waiting: Array<() => void> = [];
  private savepoints = 0;
  private readonly inner: Sql;

  constructor(readonly db: Db) {
    this.inner = {
      dialect: "sqlite",
      all: async <T>(text: string, params?: readonly SqlValue[]) => this.allNow<T>(text, params),
      get: async <T>(text: string, params?: readonly SqlValue[]) => this.getNow<T>(text, params),
      run: async (text: string, params?: readonly SqlValue[]) => this.runNow(text, params),
      tx: <T>(fn: (q: Sql) => Promise<T>) => this.savepoint(fn),
    };
  }

  async all<T>(text: string, params?: readonly SqlValue[]): Promise<T[]> {
    while (this.busy) await this.turn();
    return this.allNow<T>(text, params);
  }

  async get<T>(text: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    while (this.busy) await this.turn();
    return this.getNow<T>(text, params);
  }

  async run(text: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
    while (this.busy) await this.turn();
    return this.runNow(text, params);
  }

  async tx<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    while (this.busy) await this.turn();
    this.busy = true;
    try {
      this.db.exec("BEGIN IMMEDIATE");
      let result: T;
      try {
        result = await fn(this.inner);
      } catch (err) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw err;
      }
      this.db.exec("COMMIT");
      return result;
    } finally {
      this.busy = false;
      this.waiting.shift()?.();
    }
  }

  /**
   * Runs synchronous work on the connection when no transaction is open: at once when none
   * is, else as soon as the open one ends. For code that keeps its own prepared statements.
   */
  async exclusive<T>(fn: () => T): Promise<T> {
    while (this.busy) await this.turn();
    return fn();
  }

  /** True while an asynchronous transaction holds the connection. */
  get inTransaction(): boolean {
    return this.busy;
  }

  /** Waits until the open transaction ends; wakes the next waiter in line after this one runs. */
  private turn(): Promise<void> {
    return new Promise((resolve) =>
      this.waiting.push(() => {
        resolve();
        // Statements run in the resolved caller's turn; let the next waiter go right after it
        // unless that caller opened a transaction of its own.
        queueMicrotask(() => {
          if (!this.busy) this.waiting.shift()?.();
        });
      }),
    );
  }

  private async savepoint<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    const name = `sp${++this.savepoints}`;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn(this.inner);
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      this.db.exec(`ROLLBACK TO ${name}`);
      this.db.exec(`RELEASE ${name}`);
      throw err;
    } finally {
      this.savepoints--;
    }
  }

  private statement(text: string): Statement {
    let s = this.statements.get(text);
    if (!s) {
      s = this.db.prepare(text);
      this.statements.set(text, s);
    }
    return s;
  }

  private allNow<T>(text: string, params: readonly SqlValue[] = []): T[] {
    return this.statement(text).all(...bind(params)) as T[];
  }

  private getNow<T>(text: string, params: readonly SqlValue[] = []): T | undefined {
    return this.statement(text).get(...bind(params)) as T | undefined;
  }

  private runNow(text: string, params: readonly SqlValue[] = []): SqlRunResult {
    return { changes: this.statement(text).run(...bind(params)).changes };
  }
}

/** SQLite has no boolean type: true and false are stored as 1 and 0. */
function bind(params: readonly SqlValue[]): unknown[] {
  return params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p));
}
