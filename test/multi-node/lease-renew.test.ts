/**
 * The session lease's renewal (session-gate.ts) reports a session lost only when a lease this
 * node took before the renewal started was not renewed. A lease taken while the renewal's
 * statement is on its way is not in what it renewed, and is not lost: reporting it aborted a
 * run that held its lease (a run task ended cancelled under load on PostgreSQL).
 */
import { expect, test } from "vitest";
import { LeaseGate } from "../../src/agent/session-gate.js";
import type { Sql, SqlValue } from "../../src/store/sql.js";

/** An executor whose lease takes succeed at once and whose renewals answer when told to. */
function fakeSql() {
  const renewals: Array<(ids: string[]) => void> = [];
  const sql: Sql = {
    dialect: "postgres",
    all: <T>(_text: string, _params?: readonly SqlValue[]) =>
      new Promise<T[]>((resolve) => renewals.push((ids) => resolve(ids.map((id) => ({ session_id: id }) as T)))),
    get: async () => undefined,
    run: async () => ({ changes: 1 }),
    tx: (fn) => fn(sql),
  };
  return { sql, renewals };
}

test("a lease taken while a renewal is on its way is not reported lost; one held before it and not renewed is", async () => {
  const { sql, renewals } = fakeSql();
  const gate = new LeaseGate(sql, "node-a", 15_000);
  const signal = new AbortController().signal;
  await gate.enter("ses_before", signal);
  const renewing = gate.renew();
  await gate.enter("ses_during", signal); // committed after the renewal's statement started
  renewals.shift()!([]); // it renewed neither
  expect(await renewing).toEqual(["ses_before"]);

  // Given back and taken again during a renewal: the new take is not judged by it.
  const again = gate.renew();
  await gate.leave("ses_during");
  await gate.enter("ses_during", signal);
  renewals.shift()!(["ses_before"]);
  expect(await again).toEqual([]);

  // A lease held before the renewal and renewed is not lost.
  const third = gate.renew();
  renewals.shift()!(["ses_before", "ses_during"]);
  expect(await third).toEqual([]);
});
