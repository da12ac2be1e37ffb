/**
 * Session lease takes that come while one is on its way go together in one statement
 * (session-gate.ts, WhileBusy), against a real PostgreSQL: each session of the batch is judged
 * as its own take was — free leases are taken, one another node holds is not, one whose session
 * still has an earlier run task queued is not until that task ends — and a session twice in the
 * batch costs no error (a statement may write a row once).
 */
import { expect, test, vi } from "vitest";
import { LeaseGate } from "../../src/agent/session-gate.js";
import { useOpenedPg } from "../helpers/use-pg-server.js";
import { WAIT } from "../helpers/wait.js";

const pg = useOpenedPg();

const holders = async () =>
  Object.fromEntries(
    (await pg.db.sql.all<{ session_id: string; node: string }>("SELECT session_id, node FROM session_leases")).map(
      (r) => [r.session_id, r.node],
    ),
  );

test("takes at once go in one statement, each judged as alone", async () => {
  const a = new LeaseGate(pg.db.sql, "node-a", 15_000);
  const b = new LeaseGate(pg.db.sql, "node-b", 15_000);
  const signal = new AbortController();
  await b.enter("ses_held", signal.signal);
  const now = Date.now();
  const earlier = await pg.db.sql.get<{ seq: number }>(
    `INSERT INTO tasks (id, kind, title, session_id, project, status, phase, version, created_at, updated_at)
     VALUES ('task_earlier', 'run', 'earlier', 'ses_ordered', 'default', 'todo', 'queued', 1, ?, ?) RETURNING seq`,
    [now, now],
  );
  const statements = vi.spyOn(pg.db.sql, "all");
  const entered: string[] = [];
  const enter = (id: string, order?: number) =>
    a.enter(id, signal.signal, order).then(
      () => void entered.push(id),
      () => {},
    );
  const free = ["ses_1", "ses_2", "ses_3", "ses_4"];
  const all = Promise.all([
    ...free.map((id) => enter(id)),
    enter("ses_held"),
    enter("ses_ordered", earlier!.seq + 1),
    enter("ses_twice"),
    enter("ses_twice"),
  ]);
  await vi.waitFor(() => expect(entered.sort()).toEqual([...free, "ses_twice", "ses_twice"].sort()), WAIT);
  // All but the first take went in one statement.
  const batched = statements.mock.calls.filter(([text]) => text.startsWith("INSERT INTO session_leases"));
  expect(batched.length).toBeGreaterThanOrEqual(1);
  expect(JSON.parse(String(batched[0]![1]![2])).length).toBeGreaterThanOrEqual(5);
  expect(await holders()).toMatchObject({
    ...Object.fromEntries(free.map((id) => [id, "node-a"])),
    ses_held: "node-b",
    ses_twice: "node-a",
  });
  expect((await holders()).ses_ordered).toBeUndefined();

  // The earlier task ends: the ordered session's take (retrying) gets it; the other node gives
  // its lease back: this one gets that too.
  await pg.db.sql.run("UPDATE tasks SET status = 'done' WHERE id = 'task_earlier'");
  await b.leave("ses_held");
  await vi.waitFor(() => expect(entered).toContain("ses_ordered"), WAIT);
  await vi.waitFor(() => expect(entered).toContain("ses_held"), WAIT);
  await all;
  expect(await holders()).toMatchObject({ ses_held: "node-a", ses_ordered: "node-a" });
  statements.mockRestore();
});
