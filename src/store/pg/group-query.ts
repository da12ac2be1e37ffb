/**
 * Several statements in one write and one transaction: each statement's Parse (when its
 * connection has not prepared it), Bind, Describe (when its columns are not known yet) and
 * Execute, then a single Sync. PostgreSQL runs them in order as one implicit transaction and
 * answers with one ReadyForQuery after the commit; an error anywhere rolls back all of them.
 * The answers come in order, each statement's rows ending with its CommandComplete, so each
 * goes to its own PreparedQuery. A `pg` custom query, as PreparedQuery is.
 */
import type { Connection, PreparedQuery, PreparedResult } from "./prepared-query.js";

export class GroupQuery {
  /** Called once by `pg`'s Client: no error when the group committed (each part's result is then read with `result()`). */
  callback?: (err: Error | null, result?: PreparedResult) => void;
  /** The part whose answers come now. */
  private at = 0;
  /** Whether anything was sent (not when a part could not be: nothing of the group was). */
  sent = false;

  constructor(readonly parts: readonly PreparedQuery[]) {}

  submit(connection: Connection): Error | null {
    // All or nothing is sent: pg's Client takes an error from submit to mean nothing was.
    for (const part of this.parts) {
      const unsendable = part.unsendable(connection);
      if (unsendable) return unsendable;
    }
    this.sent = true;
    connection.stream.cork?.();
    try {
      for (const part of this.parts) part.submit(connection, false);
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: Parameters<PreparedQuery["handleRowDescription"]>[0]): void {
    this.parts[this.at]?.handleRowDescription(msg);
  }

  handleDataRow(msg: Parameters<PreparedQuery["handleDataRow"]>[0]): void {
    this.parts[this.at]?.handleDataRow(msg);
  }

  handleCommandComplete(msg: { text: string }): void {
    this.parts[this.at]?.handleCommandComplete(msg);
    this.at++;
  }

  handleEmptyQuery(): void {
    this.at++;
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail("tsclaw sends no COPY data");
  }

  handleCopyData(): void {}

  handleError(err: Error): void {
    this.callback?.(err);
  }

  handleReadyForQuery(): void {
    this.callback?.(null, { rows: [], rowCount: null });
  }
}
