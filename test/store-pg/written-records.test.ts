/** On PostgreSQL, as on SQLite (test/tasks/task-store.test.ts): a change's returned record is the row as stored. */
import { test } from "vitest";
import { useOpenedPg } from "../helpers/use-pg-server.js";
import { expectWrittenRecordsAsStored } from "../helpers/written-records.js";

const pg = useOpenedPg();

test("a change's returned record is the row as stored, every field and the poll count included", async () => {
  const now = Date.now();
  await pg.db.sql.run(
    `INSERT INTO tasks (seq, id, kind, title, project, status, phase, version, created_at, updated_at)
     VALUES (1, 'walked', 'work', 'walked through every field', 'test', 'todo', 'open', 1, ?, ?)`,
    [now, now],
  );
  await expectWrittenRecordsAsStored(pg.db.sql, "walked");
});
