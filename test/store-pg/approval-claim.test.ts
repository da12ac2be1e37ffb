/**
 * A run paused on an approval by a node that then died, resumed by another node: the claim that
 * wins the resume makes the resuming node the owner of the run and of its task in the same
 * statement. Other nodes sweep a gone node's work on every heartbeat (its in-progress run tasks
 * end as `node_lost`, its running runs as errors, except those paused on an approval nobody
 * has resumed yet); once the approval counts as resumed, a run and a task still owned by the
 * gone node would be ended as lost while the resuming node runs them (a flake in CI's
 * multi-node approval test found it: the claim and the take-over were two statements).
 */
import { expect, test } from "vitest";
import { RunRows } from "../../src/agent/run-rows.js";
import { ApprovalStore } from "../../src/approvals/approval-store.js";
import { endLostRunTasks } from "../../src/tasks/task-recovery.js";
import { TaskStore } from "../../src/tasks/task-store.js";
import { useOpenedPg } from "../helpers/use-pg-server.js";

const pg = useOpenedPg();
const GONE = "node-gone";
const RESUMER = "node-resumer";
let n = 0;

/** A run task in progress on the gone node, its run paused on an approval that was decided. */
async function pausedOnGoneNode() {
  const k = ++n;
  const sql = pg.db.sql;
  const now = Date.now();
  const [taskId, runId, approvalId] = [`t-${k}`, `r-${k}`, `a-${k}`];
  await sql.run(
    `INSERT INTO sessions (id, key, name, bus, model, provider, instructions, stream_text, created_at, updated_at)
     VALUES (?, ?, NULL, 'default', 'm', 'openai', NULL, 0, ?, ?)`,
    [`s-${k}`, `key-${k}`, now, now],
  );
  await sql.run(
    `INSERT INTO tasks (seq, id, kind, title, project, status, phase, version, created_at, updated_at, run_node)
     VALUES (?, ?, 'run', 'paused', 'test', 'in_progress', 'running', 1, ?, ?, ?)`,
    [k, taskId, now, now, GONE],
  );
  await sql.run(
    "INSERT INTO runs (id, session_id, task_id, kind, status, started_at, node) VALUES (?, ?, ?, 'agent', 'running', ?, ?)",
    [runId, `s-${k}`, taskId, now, GONE],
  );
  await sql.run(
    `INSERT INTO approvals (id, status, session_id, run_id, task_id, call_id, script, args, reason, on_timeout, requested_at)
     VALUES (?, 'approved', ?, ?, ?, 'call', 'echo hi', '{}', 'always', 'deny', ?)`,
    [approvalId, `s-${k}`, runId, taskId, now],
  );
  return { taskId, runId, approvalId };
}

/** What the other nodes' sweep of the gone node's work ends now: [tasks, runs]. */
async function sweep(): Promise<[number, number]> {
  const sql = pg.db.sql;
  const tasks = await endLostRunTasks(new TaskStore(sql, () => {}), [RESUMER]);
  const runs = await new RunRows(sql, RESUMER).interruptStale([RESUMER]);
  return [tasks, runs];
}

test("a decided approval nobody resumed yet: the sweep leaves its run and task alone", async () => {
  const { taskId } = await pausedOnGoneNode();
  expect(await sweep()).toEqual([0, 0]);
  const row = await pg.db.sql.get<{ status: string }>("SELECT status FROM tasks WHERE id = ?", [taskId]);
  expect(row?.status).toBe("in_progress");
});

test("the claim that resumes it takes the run and the task over in the same statement: a sweep right after ends neither", async () => {
  const { taskId, runId, approvalId } = await pausedOnGoneNode();
  const approvals = new ApprovalStore(pg.db.sql, RESUMER);
  expect(await approvals.claimResume(approvalId, `${RESUMER}:${runId}:x`, RESUMER)).toBe(true);
  expect(await sweep()).toEqual([0, 0]);
  const task = await pg.db.sql.get<{ status: string; run_node: string }>(
    "SELECT status, run_node FROM tasks WHERE id = ?",
    [taskId],
  );
  const run = await pg.db.sql.get<{ status: string; node: string }>("SELECT status, node FROM runs WHERE id = ?", [
    runId,
  ]);
  expect(task).toEqual({ status: "in_progress", run_node: RESUMER });
  expect(run).toEqual({ status: "running", node: RESUMER });
  // Exactly one resumer: another node's claim loses, and takes nothing over.
  expect(await approvals.claimResume(approvalId, "node-other:x", "node-other")).toBe(false);
  const after = await pg.db.sql.get<{ run_node: string }>("SELECT run_node FROM tasks WHERE id = ?", [taskId]);
  expect(after?.run_node).toBe(RESUMER);
});
