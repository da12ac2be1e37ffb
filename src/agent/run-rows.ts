/**
 * The `runs` table: a run's row at its start (alone, with a read the run needs folded into the
 * same statement, or carried by the write that starts its task), its end, a session's totals,
 * and the rows a gone node left running. Reached as `SessionStore.runs`.
 */
import { ownerGone } from "../nodes/owners.js";
import type { CarriedWrite, Sql, SqlValue } from "../store/sql.js";
import type { RunEnd, RunTotals } from "./session-rows.js";

/** A read a run makes inside one of its own statements (one round trip instead of two). */
export interface FoldedRead {
  sql: string;
  params: SqlValue[];
}

/**
 * A run's start (its row, and the read it needs: `FoldedRead`) for the write that starts its
 * task to carry (PostgreSQL): `cte` runs only when that write's row CTE `t` returned a row, and
 * `column` is a column of its result (the read's rows as a JSON array). `done` and `rows` are
 * set once a write carried it.
 */
export interface RunStart {
  readonly cte: string;
  readonly cteParams: readonly SqlValue[];
  readonly column: string;
  readonly columnParams: readonly SqlValue[];
  done: boolean;
  rows: unknown[];
}

const R = {
  insert:
    "INSERT INTO runs (id, session_id, task_id, kind, status, started_at, node) VALUES (?, ?, ?, ?, 'running', ?, ?)",
  end: "UPDATE runs SET status = ?, turns = ?, tool_calls = ?, input_tokens = ?, output_tokens = ?, cached_tokens = ?, reasoning_tokens = ?, cost = ?, error = ?, ended_at = ? WHERE id = ?",
  // Quoted aliases: PostgreSQL folds unquoted names to lower case.
  stats: `SELECT COALESCE(SUM(CASE WHEN kind = 'agent' THEN 1 ELSE 0 END), 0) AS runs, COALESCE(SUM(input_tokens), 0) AS input,
    COALESCE(SUM(output_tokens), 0) AS output, COALESCE(SUM(cached_tokens), 0) AS "cachedInput",
    COALESCE(SUM(reasoning_tokens), 0) AS reasoning, SUM(cost) AS cost FROM runs WHERE session_id = ?`,
  interrupt: "UPDATE runs SET status = 'error', error = ?, ended_at = ? WHERE status = 'running' AND ",
} as const;

/** Statements over the runs table. */
export class RunRows {
  constructor(
    private readonly sql: Sql,
    /** This process's node: the owner of the runs it starts. */
    private readonly node: string,
  ) {}

  /**
   * Records a run's start. `read`: a read the run needs at its start, made in the same
   * statement on PostgreSQL (a data-modifying CTE: one round trip and one commit), after it on
   * SQLite; resolves to its rows.
   */
  async start<T = unknown>(
    runId: string,
    sessionId: string,
    taskId: string | undefined,
    kind: "agent" | "compact",
    read?: FoldedRead,
  ): Promise<T[]> {
    const params = [runId, sessionId, taskId ?? null, kind, Date.now(), this.node];
    if (!read) {
      await this.sql.run(R.insert, params);
      return [];
    }
    if (this.sql.dialect === "postgres")
      return this.sql.all<T>(`WITH run AS (${R.insert}) ${read.sql}`, [...params, ...read.params]);
    await this.sql.run(R.insert, params);
    return this.sql.all<T>(read.sql, read.params);
  }

  /**
   * The run's start as another write can carry it (see RunStart), on PostgreSQL; undefined on
   * SQLite (the run writes its row with start).
   */
  startToCarry(runId: string, sessionId: string, taskId: string, read?: FoldedRead): RunStart | undefined {
    if (this.sql.dialect !== "postgres") return undefined;
    return {
      cte: `run AS (INSERT INTO runs (id, session_id, task_id, kind, status, started_at, node)
        SELECT ?, ?, ?, 'agent', 'running', ?, ? WHERE EXISTS (SELECT 1 FROM t))`,
      cteParams: [runId, sessionId, taskId, Date.now(), this.node],
      column: read ? `(SELECT json_agg(r) FROM (${read.sql}) AS r)` : "NULL",
      columnParams: read ? read.params : [],
      done: false,
      rows: [],
    };
  }

  /** This node takes over a stored run (a paused run resumed here). */
  async adopt(runId: string): Promise<void> {
    await this.sql.run("UPDATE runs SET node = ? WHERE id = ?", [this.node, runId]);
  }

  /** Records a run's end. */
  async end(runId: string, end: RunEnd): Promise<void> {
    await this.sql.run(R.end, endParams(runId, end));
  }

  /**
   * A run's end as another write can carry it (a task's end, which gives the session's lease
   * back in the same statement): see CarriedWrite. `write` runs it alone when none did.
   */
  endToCarry(runId: string, end: RunEnd): CarriedWrite {
    return { sql: R.end, params: endParams(runId, end), done: false };
  }

  /** Runs `end` (from endToCarry) unless a statement carried it already. */
  async write(end: CarriedWrite): Promise<void> {
    if (end.done) return;
    await this.sql.run(end.sql, end.params);
    end.done = true;
  }

  /** Agent runs, tokens and cost over every run (compactions' tokens included). */
  async stats(sessionId: string): Promise<RunTotals> {
    return (await this.sql.get<RunTotals>(R.stats, [sessionId]))!;
  }

  /** The session's run tasks still queued (`todo`), whichever node they wait on. */
  async queuedTasks(sessionId: string): Promise<number> {
    const row = await this.sql.get<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM tasks WHERE session_id = ? AND kind = 'run' AND status = 'todo'",
      [sessionId],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Runs left "running" by a gone node (a dead process, a lost node) end as errors, except runs
   * paused on an approval nobody has resumed yet: they were running nothing, and go on once it
   * is decided.
   */
  async interruptStale(live: readonly string[]): Promise<number> {
    const error = JSON.stringify({ code: "interrupted", message: "the process ended during the run" });
    const gone = ownerGone("node", live);
    const paused = " AND id NOT IN (SELECT run_id FROM approvals WHERE resumed_at IS NULL)";
    return (await this.sql.run(R.interrupt + gone.sql + paused, [error, Date.now(), ...gone.params])).changes;
  }
}

/** The parameters of R.end for `end`. */
function endParams(runId: string, end: RunEnd): SqlValue[] {
  return [
    end.status,
    end.turns,
    end.toolCalls,
    end.usage.input,
    end.usage.output,
    end.usage.cachedInput,
    end.usage.reasoning,
    end.usage.cost,
    end.error ? JSON.stringify(end.error) : null,
    Date.now(),
    runId,
  ];
}
