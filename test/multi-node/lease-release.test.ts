/**
 * A session lease given back by the job's own end (session-gate.ts `leave` with a `via`): a task
 * run's end write carries the DELETE of the lease in the same statement. The gate then runs no
 * DELETE of its own; it runs one when the end did not carry it (no change to write, a failure),
 * and this node's next take of the session waits until the end is written either way.
 */
import { expect, test } from "vitest";
import { LeaseGate, type LeaseRelease } from "../../src/agent/session-gate.js";
import type { Sql } from "../../src/store/sql.js";

/** An executor that records its statements; every lease take succeeds. */
function recordingSql() {
  const statements: string[] = [];
  const sql: Sql = {
    dialect: "postgres",
    all: async () => [],
    get: async () => undefined,
    run: async (text) => {
      statements.push(text.trim().split(/\s+/).slice(0, 3).join(" "));
      return { changes: 1 };
    },
    tx: (fn) => fn(sql),
  };
  return { sql, statements };
}

const signal = new AbortController().signal;

test("an end that carries the release: no DELETE of the gate's own, and the next take waits for that end", async () => {
  const { sql, statements } = recordingSql();
  const gate = new LeaseGate(sql, "node-a", 15_000);
  await gate.enter("ses_1", signal);
  let endWritten!: () => void;
  let offered: LeaseRelease | undefined;
  const leaving = gate.leave("ses_1", (release) => {
    offered = release;
    return new Promise<void>((resolve) => {
      endWritten = () => {
        release!.done = true; // as TaskStore.change does once its statement ran
        resolve();
      };
    });
  });
  await new Promise((r) => setImmediate(r));
  expect(offered?.sql).toMatch(/^DELETE FROM session_leases WHERE session_id = \? AND node = \?$/);
  expect(offered?.params).toEqual(["ses_1", "node-a"]);
  let taken = false;
  const next = gate.enter("ses_1", signal).then(() => {
    taken = true;
  });
  // Nothing but the end's promise holds the take back (the executor answers at once), so a few
  // turns of the event loop are all a take that did not wait would need.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  expect(taken).toBe(false); // the end is not written yet: the lease is still this run's
  expect(statements.filter((s) => s.startsWith("INSERT"))).toHaveLength(1);
  endWritten();
  await leaving;
  await next;
  expect(statements.filter((s) => s.startsWith("DELETE"))).toEqual([]);
  expect(statements.filter((s) => s.startsWith("INSERT"))).toHaveLength(2);
});

test("an end that did not carry the release (nothing to write, or it failed): the gate deletes the lease itself", async () => {
  const { sql, statements } = recordingSql();
  const gate = new LeaseGate(sql, "node-a", 15_000);
  await gate.enter("ses_2", signal);
  await gate.leave("ses_2", async () => {});
  expect(statements.filter((s) => s.startsWith("DELETE"))).toHaveLength(1);
  await gate.enter("ses_2", signal);
  await gate.leave("ses_2", async () => {
    throw new Error("the end could not be written");
  });
  expect(statements.filter((s) => s.startsWith("DELETE"))).toHaveLength(2);
});
