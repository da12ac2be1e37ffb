/**
 * Writes that go to PostgreSQL together. While one group of writes is on its way, the writes
 * that come meanwhile wait and then go as the next group: one transaction, one write to the
 * socket, one commit (group-query.ts). Nothing waits when nothing is on its way: a lone write
 * goes at once, as it did alone. Each caller still gets its own statement's rows, and only once
 * the group has committed, so a write is as durable when it answers as it was alone.
 *
 * Why: every statement of a run task was a round trip, and on the node's side a round trip is
 * more than its CPU: the write wakes the server's backend, which takes the sender's core on a
 * busy machine (bench/README.md, "Where a run task's CPU goes"); and each was a commit of its
 * own on the server. Grouped, a run task's ~5 statements from 20 sessions at once went in ~0.8
 * round trips, and the server's CPU per run task fell by ~40 %.
 *
 * What it keeps:
 *   - Only writes are grouped (INSERT, UPDATE, DELETE, or a WITH that holds one). Reads go as
 *     they did, each on a connection of its own, so a long read never holds up a write.
 *   - One group at a time: two groups could lock the same rows in opposite orders and wait on
 *     each other until PostgreSQL's deadlock check; one cannot. A group waits at most 200 ms
 *     for a row another transaction holds (LOCK_WAIT); then its statements go alone.
 *   - A group is all or nothing. When any of its statements fails, PostgreSQL rolls the whole
 *     group back, and each of its statements goes again alone (outside any group, at once, as
 *     they would have gone without it): each caller gets its own statement's outcome, and none
 *     is written twice. When the connection fails or the answer does not come in time instead,
 *     the group may have committed: each caller gets that error, as it would have alone, and
 *     nothing is sent again. The connection of a failed group is closed (`pg`'s pool does that
 *     for any failed query), which also forgets what it had prepared.
 *
 * The waiting and the one group on its way are the project's WhileBusy; a group's answers are
 * each statement's own promise, never thrown (WhileBusy would send a thrown round again). The
 * statements of a rolled-back group go alone while the next group is on its way.
 */
import { WhileBusy } from "../../core/while-busy.js";
import { GroupQuery } from "./group-query.js";
import type { PreparedNames, Queryable } from "./prepared-names.js";
import type { PreparedQuery, PreparedResult } from "./prepared-query.js";

/**
 * How long a group waits for a row another transaction holds before it gives up, rolls back and
 * lets each of its statements go alone (where only that one waits). Row locks are held for
 * milliseconds here; a lock held longer (a transaction of another node stuck or dying) would
 * otherwise hold up every write of this node behind the group, its heartbeat's included.
 */
const LOCK_WAIT = "SELECT set_config('lock_timeout', '200ms', true)";

/** At most this many statements in one group (the rest go in the next). */
const MAX_GROUP = 64;

interface Statement {
  text: string;
  values: readonly unknown[];
}

/** Whether a text writes: grouped. Kept by text (the same few dozen texts come again and again). */
const WRITES = new Map<string, boolean>();
const WRITE = /^\s*(?:INSERT|UPDATE|DELETE)\b/i;
const WITH_WRITE = /^\s*WITH\b[\s\S]*\b(?:INSERT|UPDATE|DELETE)\b/i;

/**
 * True when PostgreSQL answered the group with an error (severity ERROR): it rolled back every
 * statement of it. Not for a connection that failed, or an answer that did not come in time
 * (`query_timeout`): the group may then have committed.
 */
function rolledBack(err: Error): boolean {
  const { severity, code } = err as { severity?: unknown; code?: unknown };
  return severity === "ERROR" && typeof code === "string";
}

export function isWrite(text: string): boolean {
  let write = WRITES.get(text);
  if (write === undefined) {
    write = WRITE.test(text) || WITH_WRITE.test(text);
    if (WRITES.size < 10_000) WRITES.set(text, write);
  }
  return write;
}

/** The grouped writes of one database's pool. */
export class StatementGroups {
  /** The project's one-on-its-way batching: each statement is answered with a promise of its own outcome. */
  private readonly writes = new WhileBusy<Statement, Promise<PreparedResult>>((batch) => this.sendAll(batch));

  constructor(
    private readonly pool: Queryable,
    private readonly names: PreparedNames,
  ) {}

  /** Runs `text` (with `values`) outside a transaction: in a group when it writes, else alone. */
  async query(text: string, values: readonly unknown[]): Promise<PreparedResult> {
    if (!isWrite(text)) return this.names.query(this.pool, text, values);
    return await this.writes.call({ text, values });
  }

  /** The writes that waited, MAX_GROUP at a time, one group after the other. */
  private async sendAll(batch: readonly Statement[]): Promise<Promise<PreparedResult>[]> {
    const answers: Promise<PreparedResult>[] = [];
    for (let i = 0; i < batch.length; i += MAX_GROUP) answers.push(...(await this.send(batch.slice(i, i + MAX_GROUP))));
    return answers;
  }

  /**
   * One group; its statements' answers. Never throws: WhileBusy would send a round that threw
   * again, and a group whose outcome is unknown must not be.
   */
  private async send(group: readonly Statement[]): Promise<Promise<PreparedResult>[]> {
    if (group.length === 1) {
      // Alone: on its way until it has answered, as a group is.
      const answer = handled(this.alone(group[0]!));
      await answer.catch(() => {});
      return [answer];
    }
    const parts = group.map((w) => this.names.prepared(w.text, w.values));
    // The group's lock waits are bounded (see LOCK_WAIT); its first statement says so.
    const query = new GroupQuery([this.names.prepared(LOCK_WAIT, []), ...parts]);
    const failed = await new Promise<Error | null>((resolve) => {
      this.pool.query(query as unknown as PreparedQuery, undefined, (err) => resolve(err));
    });
    if (!failed)
      return parts.map((part) => {
        const result = part.result();
        return handled(result instanceof Error ? Promise.reject(result) : Promise.resolve(result));
      });
    // The connection failed or timed out: the group may have committed. Each caller hears what
    // a statement of its own would have said, and nothing is sent again.
    if (query.sent && !rolledBack(failed)) return group.map(() => handled(Promise.reject(failed)));
    // Rolled back as a whole: each again, alone and at once, as it would have gone without the
    // group, each caller answered as soon as its own is (one waiting on a lock holds up none of
    // the others). Also what a statement that failed for its prepared name needs: names.query
    // sends it again unnamed.
    return group.map((w) => handled(this.alone(w)));
  }

  /** One statement on a connection of its own. */
  private alone(w: Statement): Promise<PreparedResult> {
    return this.names.query(this.pool, w.text, w.values);
  }
}

/** `p`, its rejection reported to whoever awaits it (its caller), not as unhandled meanwhile. */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}
