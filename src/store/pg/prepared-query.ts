/**
 * One statement as `pg` runs it, for the texts tsclaw sends over and over. `pg`'s own query
 * asks the server to describe the result's columns at every call and builds a parser for each
 * column again from that description (over 30 for a `RETURNING *` of the tasks table); it also
 * copies its config and makes an event emitter per call. A named statement's columns cannot
 * change while it stays prepared on a connection (a schema change under it fails with "cached
 * plan must not change result type", after which its text goes unnamed: prepared-names.ts), so
 * a text's columns are learned from the description the server gives when a connection
 * prepares it, and its later calls there skip the Describe: the server sends the rows alone,
 * built here with the parsers already made.
 *
 * This is `pg`'s documented extension point for custom queries (an object with `submit`, as
 * pg-cursor and pg-query-stream are); its handlers are the ones `pg`'s Client calls.
 */
import type { FieldDef } from "pg";

/** Turns a column's text into its JS value. */
type Parser = (text: string) => unknown;
/** A type parser lookup, as the pool's `types` option has it. */
export type TypeParsers = { getTypeParser(oid: number, format?: "text" | "binary"): Parser };

/** The columns of a statement's rows (none for one that returns no rows) and their parsers. */
interface RowShape {
  names: readonly string[];
  parsers: readonly Parser[];
}

const NO_ROWS: RowShape = { names: [], parsers: [] };

/** What `pg`'s connection offers a query (the part used here). */
export interface Connection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?(): void; uncork?(): void };
  parse(m: { text: string; name?: string }): void;
  bind(m: { statement?: string; values: readonly unknown[] }): void;
  describe(m: { type: "P"; name: string }): void;
  execute(m: { portal: string }): void;
  sync(): void;
}

/** The rows and count a statement ended with. */
export interface PreparedResult {
  rows: Record<string, unknown>[];
  /** The count in the server's command tag (rows inserted, updated, deleted or returned), if any. */
  rowCount: number | null;
}

/** Type parsers that make int8 (20) and numeric (1700) JS numbers, as SQLite returns them. */
export function numericTypes(pgTypes: typeof import("pg").types): { getTypeParser: typeof pgTypes.getTypeParser } {
  return {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === 20 || oid === 1700
        ? (v: string) => Number(v)
        : pgTypes.getTypeParser(oid, format)) as typeof pgTypes.getTypeParser,
  };
}

/**
 * How one database's statements are encoded and decoded: `pg`'s own value encoding, the type
 * parsers, and the columns of each named text as last described.
 */
export class StatementCodec {
  private readonly shapes = new Map<string, RowShape>();

  private constructor(
    readonly encode: (value: unknown) => unknown,
    private readonly types: TypeParsers,
  ) {}

  /** Loads `pg` (only a PostgreSQL store does) and makes the codec for its pool's types. */
  static async load(): Promise<StatementCodec> {
    const pg = (await import("pg")).default;
    // pg's own encoding of a value (arrays, dates, buffers, JSON), as its queries use. Named by a
    // variable: pg's typings leave out its lib/ modules.
    const utils: string = "pg/lib/utils.js";
    const { prepareValue } = (await import(utils)) as { prepareValue(v: unknown): unknown };
    return new StatementCodec(prepareValue, numericTypes(pg.types));
  }

  /** The columns last described for the named `text`. */
  shapeOf(text: string): RowShape | undefined {
    return this.shapes.get(text);
  }

  /** The columns `fields` describe, kept for `text` when it is named. */
  learn(named: boolean, text: string, fields: readonly FieldDef[] | null): RowShape {
    const shape = fields
      ? { names: fields.map((f) => f.name), parsers: fields.map((f) => this.types.getTypeParser(f.dataTypeID, "text")) }
      : NO_ROWS;
    if (named) this.shapes.set(text, shape);
    return shape;
  }

  /** Forgets the columns of `text` (they changed). */
  forget(text: string): void {
    this.shapes.delete(text);
  }
}

/** A statement in `pg`'s custom query form. */
export class PreparedQuery {
  /** Called once with the result or the error (set by `pg`'s Client from the query call). */
  callback?: (err: Error | null, result?: PreparedResult) => void;
  private readonly rows: Record<string, unknown>[] = [];
  private rowCount: number | null = null;
  private shape: RowShape | undefined;
  /** A Describe was sent: its answer (or its absence, for no rows) says the columns. */
  private describing = false;
  private failed: Error | undefined;

  constructor(
    /** The server-side name; none for an unnamed statement (parsed and described every time). */
    readonly name: string | undefined,
    readonly text: string,
    readonly values: readonly unknown[],
    private readonly codec: StatementCodec,
  ) {}

  /** The values as `pg` sends them, once encoded. */
  private encoded: unknown[] | undefined;

  /**
   * Why the statement cannot be sent on `connection` (nothing is sent): a value that cannot be
   * encoded, or its name prepared there for another text; null when it can.
   */
  unsendable(connection: Connection): Error | null {
    const prepared = this.preparedOn(connection);
    if (prepared && prepared !== this.text) return new Error(`prepared statement ${this.name} names another text`);
    try {
      this.encoded ??= this.values.map(this.codec.encode);
      return null;
    } catch (err) {
      return err as Error;
    }
  }

  /** The text `connection` has prepared (or is preparing) under this statement's name, if any. */
  private preparedOn(connection: Connection): string | undefined {
    const { name } = this;
    return name && (connection.parsedStatements[name] ?? connection.submittedNamedStatements[name]);
  }

  /** Sends the statement; without `sync` (in a group) the group's Sync ends it. */
  submit(connection: Connection, sync = true): Error | null {
    // Nothing is sent when it cannot be: pg's Client hands the error to handleError.
    const unsendable = this.unsendable(connection);
    if (unsendable) return unsendable;
    const { name, text, codec } = this;
    const prepared = this.preparedOn(connection);
    const values = this.encoded!;
    this.shape = prepared ? codec.shapeOf(text) : undefined;
    this.describing = !this.shape;
    // One write for all the messages (pg's own query does the same).
    connection.stream.cork?.();
    try {
      if (!prepared) {
        connection.parse({ text, name });
        if (name) connection.submittedNamedStatements[name] = text;
      }
      connection.bind({ statement: name, values });
      if (this.describing) connection.describe({ type: "P", name: "" });
      connection.execute({ portal: "" });
      if (sync) connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: FieldDef[] }): void {
    this.shape = this.codec.learn(this.name !== undefined, this.text, msg.fields);
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (this.failed) return;
    const { shape } = this;
    const fields = msg.fields;
    if (!shape || shape.names.length !== fields.length) {
      this.failed = new Error(`a row of ${fields.length} columns, where ${shape?.names.length ?? 0} were described`);
      this.codec.forget(this.text);
      return;
    }
    const row: Record<string, unknown> = {};
    try {
      for (let i = 0; i < fields.length; i++) {
        const v = fields[i];
        row[shape.names[i]!] = v === null || v === undefined ? null : shape.parsers[i]!(v);
      }
    } catch (err) {
      this.failed = err as Error;
      return;
    }
    this.rows.push(row);
  }

  handleCommandComplete(msg: { text: string }): void {
    const count = /^[A-Za-z]+(?: \d+)? (\d+)$/.exec(msg.text);
    this.rowCount = count ? Number(count[1]) : null;
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail("tsclaw sends no COPY data");
  }

  handleCopyData(): void {}

  handleError(err: Error): void {
    const error = this.failed ?? err;
    this.failed = undefined;
    this.callback?.(error);
  }

  handleReadyForQuery(): void {
    const result = this.result();
    if (result instanceof Error) this.handleError(result);
    else this.callback?.(null, result);
  }

  /** The statement's result (or what failed in reading its rows), once its messages are in. */
  result(): PreparedResult | Error {
    if (this.failed) return this.failed;
    // Described, and no columns came: the statement returns no rows.
    if (this.describing && !this.shape) this.codec.learn(this.name !== undefined, this.text, null);
    return { rows: this.rows, rowCount: this.rowCount };
  }
}
