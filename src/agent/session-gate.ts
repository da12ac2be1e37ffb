/**
 * One run per session across every node of a shared database. Each node's run scheduler already
 * runs a session's jobs one at a time; before a job starts, the node also takes the session's
 * lease in the database, and gives it back when the job ends (a task run: in the statement that
 * writes the task's end, so the lease covers that write and costs no round trip of its own). A lease names its node and expires
 * unless renewed (the node heartbeat renews all of its own), so a node that dies holds no
 * session longer than the lease time. A task's run also waits, in the same statement, until
 * every earlier task of its session has ended (its end recorded): tasks sent to different nodes
 * start in the order they were accepted, never one before the previous one's end. On a SQLite file the single-writer lock already makes the
 * process the only runner: the local gate admits at once and costs nothing.
 */
import { ClawError } from "../core/errors.js";
import { WhileBusy } from "../core/while-busy.js";
import type { CarriedWrite, Sql } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";

/**
 * The statement that gives a session's lease back (a DELETE), for a job to run inside a
 * statement of its own end (a data-modifying CTE on PostgreSQL): one round trip for both.
 */
export type LeaseRelease = CarriedWrite;

/**
 * A job's own end, offered the lease's release (undefined when there is no lease: one process)
 * and, from a run whose row's end is still to write (PostgreSQL), that write; resolves once
 * that end is written or will not be (each write's `done` says whether it carried it).
 */
export type LeaveWith = (release: LeaseRelease | undefined, runEnd?: CarriedWrite) => Promise<void>;

/** Admits a session's next job, across nodes. */
export interface SessionGate {
  /**
   * Resolves when this node holds `sessionId`'s lease; rejects `cancelled` when `signal` aborts
   * first. With `order` (a task's seq), not before every earlier run task of the session has
   * ended.
   */
  enter(sessionId: string, signal: AbortSignal, order?: number): Promise<void>;
  /**
   * Gives the lease back (a no-op when it is not held). With `via`, the job's end is offered the
   * release first; the gate deletes the lease itself when that end did not carry it.
   */
  leave(sessionId: string, via?: LeaveWith): Promise<void>;
  /**
   * Extends every lease this node holds (the node heartbeat calls it); resolves to the sessions
   * whose lease this node held but lost (it lapsed, or another node took it).
   */
  renew(): Promise<string[]>;
}

/** One process, one runner: nothing to wait for. */
export const LOCAL_GATE: SessionGate = {
  enter: async () => {},
  leave: async (_sessionId, via) => {
    await via?.(undefined);
  },
  renew: async () => [],
};

/** Gives this node's lease of a session back. */
const RELEASE = "DELETE FROM session_leases WHERE session_id = ? AND node = ?";

/** Who takes a lease, or did not get it: the session's id and its task's order. */
interface Take {
  sessionId: string;
  order?: number;
}

/**
 * The takes of several sessions in one statement (their tasks and orders as JSON): the rows
 * written are the leases taken.
 */
const TAKE_MANY = `INSERT INTO session_leases (session_id, node, expires_at)
  SELECT c.session_id, ?, CAST(? AS BIGINT) FROM json_to_recordset(CAST(? AS json)) AS c(session_id text, ord bigint)
   WHERE c.ord IS NULL OR NOT EXISTS (
     SELECT 1 FROM tasks WHERE tasks.session_id = c.session_id AND kind = 'run'
        AND status IN ('todo', 'in_progress') AND seq < c.ord)
  ON CONFLICT (session_id) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at
  WHERE session_leases.expires_at < ? OR session_leases.node = excluded.node
  RETURNING session_id`;

/** First and longest wait between two tries at a lease another node holds. */
const FIRST_RETRY_MS = 10;
const MAX_RETRY_MS = 200;

/** The lease table's gate (PostgreSQL nodes). */
export class LeaseGate implements SessionGate {
  /** Per session, this node's last release still under way: the next take waits for it. */
  private readonly releasing = new Map<string, Promise<void>>();
  /**
   * Sessions whose lease this node took and has not given back, each with the number of its
   * take (a lease taken again is a new take).
   */
  private readonly held = new Map<string, number>();
  private takes = 0;
  /** A turn's takes go together in one statement (a session once); see WhileBusy's overlap. */
  private readonly batches = new WhileBusy<Take, boolean>((takes) => this.takeAll(takes), {
    key: (t) => t.sessionId,
    overlap: true,
  });

  constructor(
    private readonly sql: Sql,
    private readonly node: string,
    private readonly leaseMs: number,
  ) {}

  async enter(sessionId: string, signal: AbortSignal, order?: number): Promise<void> {
    await this.releasing.get(sessionId); // an earlier release must never delete a newer take
    for (let wait = FIRST_RETRY_MS; ; wait = Math.min(MAX_RETRY_MS, wait * 2)) {
      if (signal.aborted) throw new ClawError("cancelled", "cancelled before it started");
      if (await this.tryTake(sessionId, order)) {
        this.held.set(sessionId, ++this.takes);
        return;
      }
      await sleep(wait, signal);
    }
  }

  leave(sessionId: string, via?: LeaveWith): Promise<void> {
    this.held.delete(sessionId);
    const release: LeaseRelease = { sql: RELEASE, params: [sessionId, this.node], done: false };
    // The job's end (a task's end) may carry the release in its own statement; else it runs alone.
    const done = (this.releasing.get(sessionId) ?? Promise.resolve())
      .then(() => via?.(release))
      .catch(() => {})
      .then(async () => {
        if (!release.done) await this.sql.run(RELEASE, release.params);
      });
    const settled = done.catch(() => {});
    this.releasing.set(sessionId, settled);
    void settled.then(() => {
      if (this.releasing.get(sessionId) === settled) this.releasing.delete(sessionId);
    });
    return done;
  }

  async renew(): Promise<string[]> {
    // Only a lease still valid is extended: one that lapsed (this node was paused or cut off
    // past it) may have been given up already, and its run must stop, not carry on.
    // Judged are only the takes made before the statement: their rows were committed before it
    // started, so it sees them. A lease taken (or given back and taken again) while it runs may
    // be missing from what it renewed without being lost.
    const before = [...this.held];
    const now = Date.now();
    const rows = await this.sql.all<Pick<Row<"session_leases">, "session_id">>(
      "UPDATE session_leases SET expires_at = ? WHERE node = ? AND expires_at >= ? RETURNING session_id",
      [now + this.leaseMs, this.node, now],
    );
    const renewed = new Set(rows.map((r) => r.session_id));
    return before.filter(([id, take]) => this.held.get(id) === take && !renewed.has(id)).map(([id]) => id);
  }

  /**
   * Takes the lease when it is free, expired, or already this node's, and (with `order`) no
   * earlier run task of the session is still queued or running: one statement either way,
   * shared with the takes of other sessions that come meanwhile.
   */
  private tryTake(sessionId: string, order?: number): Promise<boolean> {
    return this.batches.call({ sessionId, order });
  }

  /** Whether each take (of distinct sessions) got its lease. */
  private async takeAll(takes: readonly Take[]): Promise<boolean[]> {
    if (takes.length === 1) return [await this.takeOne(takes[0]!)];
    const now = Date.now();
    const rows = await this.sql.all<Pick<Row<"session_leases">, "session_id">>(TAKE_MANY, [
      this.node,
      now + this.leaseMs,
      JSON.stringify(takes.map((t) => ({ session_id: t.sessionId, ord: t.order ?? null }))),
      now,
    ]);
    const taken = new Set(rows.map((r) => r.session_id));
    return takes.map((t) => taken.has(t.sessionId));
  }

  private async takeOne({ sessionId, order }: Take): Promise<boolean> {
    const now = Date.now();
    const take =
      order === undefined
        ? { sql: "VALUES (?, ?, ?)", params: [sessionId, this.node, now + this.leaseMs] }
        : {
            sql: `SELECT ?, ?, CAST(? AS BIGINT) WHERE NOT EXISTS (
                    SELECT 1 FROM tasks WHERE session_id = ? AND kind = 'run'
                       AND status IN ('todo', 'in_progress') AND seq < ?)`,
            params: [sessionId, this.node, now + this.leaseMs, sessionId, order],
          };
    const { changes } = await this.sql.run(
      `INSERT INTO session_leases (session_id, node, expires_at) ${take.sql}
         ON CONFLICT (session_id) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at
         WHERE session_leases.expires_at < ? OR session_leases.node = excluded.node`,
      [...take.params, now],
    );
    return changes === 1;
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
