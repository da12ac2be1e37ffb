/**
 * The SQLite implementation of Sql over one better-sqlite3 connection. Statements are prepared
 * once per text. Writes are group-committed (write-group.ts): a write outside a transaction
 * runs at once, in the caller's turn, inside the turn's open group, and resolves once the group
 * has committed on the next turn of the event loop; a transaction runs as a savepoint of the
 * group and resolves after the same COMMIT. Reads never see a write that is not committed yet:
 * a read made while a group is open waits for its commit. better-sqlite3 runs synchronously,
 * so the only other thing to guard against is another caller's statement landing inside a
 * transaction while it awaits: while one is open, every statement from outside it (and
 * `exclusive` work such as the bus's own commits) waits for it to end.
 */
import type Database from "better-sqlite3";
import type { Db } from "./db.js";
import type { Sql, SqlRunResult, SqlValue } from "./sql.js";
import { WriteGroup } from "./write-group.js";

type Statement = Database.Statement<unknown[], unknown>;

/** Sql over a better-sqlite3 connection, plus `exclusive` for synchronous work on it. */
export class SqliteSql implements Sql {
  readonly dialect = "sqlite" as const;
  private readonly statements = new Map<string, Statement>();
  private busy = false;
  private readonly waiting: Array<() => void> = [];
  private savepoints = 0;
  private group: WriteGroup | null = null;
  /** Work waiting for the connection to be free (see `beforeNextWork`). */
  private deferred: Array<() => void> = [];
  private readonly inner: Sql;

  constructor(readonly db: Db) {
    this.inner = {
      dialect: "sqlite",
      all: async <T>(text: string, params?: readonly SqlValue[]) => this.statement(text).all(...bind(params)) as T[],
      get: async <T>(text: string, params?: readonly SqlValue[]) =>
        this.statement(text).get(...bind(params)) as T | undefined,
      run: async (text: string, params?: readonly SqlValue[]) => changes(this.statement(text), params),
      tx: <T>(fn: (q: Sql) => Promise<T>) => this.savepoint(fn),
    };
  }

  all<T>(text: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.outside(text, (s) => s.all(...bind(params)) as T[]);
  }

  get<T>(text: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.outside(text, (s) => s.get(...bind(params)) as T | undefined);
  }

  run(text: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
    return this.outside(text, (s) => changes(s, params));
  }

  /**
   * Runs `fn` as a savepoint of the open group. As `Sql.tx` says, `fn` waits on nothing but
   * `q`, and here that includes a statement issued before it in the same turn: that one belongs
   * to the same group, which commits only after `fn` has ended.
   */
  async tx<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    while (this.busy) await this.turn();
    const group = this.openGroup();
    this.busy = true;
    let result: T;
    try {
      result = await this.savepoint(fn);
    } catch (err) {
      // An I/O or full-disk error can end the whole transaction, the other members' writes with it.
      if (this.group === group && !this.db.inTransaction) this.abortGroup(group, err);
      throw err;
    } finally {
      this.busy = false;
      if (group.due) this.commitGroup(group);
      this.waiting.shift()?.();
    }
    await group.done;
    return result;
  }

  /**
   * Runs synchronous work on the connection when neither a transaction nor an uncommitted
   * group is open: at once when none is, else as soon as it ends. For code that keeps its own
   * prepared statements (and its own transactions).
   */
  async exclusive<T>(fn: () => T): Promise<T> {
    // Checked in the same step as `fn` runs: nothing can open a transaction in between.
    while (this.blocked()) await this.unblocked();
    this.runDeferred();
    return fn();
  }

  /**
   * Runs synchronous work that needs the connection free of transactions (a WAL checkpoint):
   * at once when it is, else just before the next work starts on it (a group's BEGIN, a
   * transaction, `exclusive` work), or on the turn after the open group commits when nothing
   * follows it. Never between a group's COMMIT and its members learning of it: a checkpoint
   * stalls the loop for its syncs, and the writes already committed are acknowledged first.
   */
  beforeNextWork(fn: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.deferred.push(() => {
        try {
          fn();
          resolve();
        } catch (err) {
          reject(err);
        }
      });
      if (!this.blocked()) this.runDeferred();
    });
  }

  /** True while an asynchronous transaction holds the connection. */
  get inTransaction(): boolean {
    return this.busy;
  }

  /** Commits the open group now (before the connection closes). */
  flush(): void {
    if (this.group && !this.busy) this.commitGroup(this.group);
  }

  /** A statement from outside any transaction: a read waits for the open group, a write joins it. */
  private async outside<T>(text: string, exec: (s: Statement) => T): Promise<T> {
    const s = this.statement(text);
    if (s.readonly) {
      while (this.blocked()) await this.unblocked();
      return exec(s);
    }
    while (this.busy) await this.turn();
    const group = this.openGroup();
    let result: T;
    try {
      result = exec(s);
    } catch (err) {
      // A constraint failure undoes its own statement only; other errors can end the transaction.
      if (!this.db.inTransaction) this.abortGroup(group, err);
      throw err;
    }
    await group.done;
    return result;
  }

  /** True while a transaction body or an uncommitted group holds the connection. */
  private blocked(): boolean {
    return this.busy || this.group !== null;
  }

  /** Waits for what holds the connection now to end (check `blocked` again after). */
  private unblocked(): Promise<void> {
    return this.busy ? this.turn() : this.group!.ended();
  }

  private openGroup(): WriteGroup {
    if (this.group) return this.group;
    this.runDeferred();
    const group = new WriteGroup(this.db);
    this.group = group;
    setImmediate(() => this.commitGroup(group));
    return group;
  }

  private commitGroup(group: WriteGroup): void {
    if (this.group !== group) return; // failed meanwhile
    if (this.busy) {
      group.due = true; // the transaction body holding the connection commits it as it ends
      return;
    }
    this.group = null;
    group.commit();
    // Nothing may follow on the connection: the deferred work runs once the members have had
    // their turn (any of them starting new work there runs it first).
    if (this.deferred.length > 0)
      setImmediate(() => {
        if (!this.blocked()) this.runDeferred();
      });
  }

  /** Called before every group and every `exclusive` call (the bus's commits): free when empty. */
  private runDeferred(): void {
    if (this.deferred.length === 0) return;
    for (const run of this.deferred.splice(0)) run();
  }

  private abortGroup(group: WriteGroup, err: unknown): void {
    if (this.group === group) this.group = null;
    group.fail(err);
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
      if (this.db.inTransaction) {
        this.db.exec(`ROLLBACK TO ${name}`);
        this.db.exec(`RELEASE ${name}`);
      }
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
}

function changes(s: Statement, params: readonly SqlValue[] | undefined): SqlRunResult {
  return { changes: s.run(...bind(params)).changes };
}

/** SQLite has no boolean type: true and false are stored as 1 and 0. */
function bind(params: readonly SqlValue[] = []): unknown[] {
  return params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p));
}
