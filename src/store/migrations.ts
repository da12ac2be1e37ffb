/**
 * Schema migrations, applied in order and tracked with `PRAGMA user_version`. Append a new
 * entry to change the schema; never edit one that has shipped.
 */
import { approvalResumeSqlite } from "./schema/approval-resume.js";
import { approvalsSqlite } from "./schema/approvals.js";
import { busTsSqlite } from "./schema/bus-ts.js";
import { coreSchema } from "./schema/core.js";
import { eventLayoutV2 } from "./schema/event-layout.js";
import { memorySchema } from "./schema/memory.js";
import { multiNodeSchema } from "./schema/multi-node.js";
import { narrowTaskIndexes } from "./schema/narrow-task-indexes.js";
import { nodesSchema } from "./schema/nodes.js";
import { oneEventIndexSqlite } from "./schema/one-event-index.js";
import { openRunTasksSqlite } from "./schema/open-run-tasks.js";
import { schedulesSqlite } from "./schema/schedules.js";
import { sessionItemsSchema } from "./schema/session-items.js";
import { sessionSchema } from "./schema/sessions.js";
import { taskSchema } from "./schema/tasks.js";

/** Index i holds the SQL that takes the schema from version i to i + 1. */
export const MIGRATIONS: readonly string[] = [
  coreSchema + sessionSchema + taskSchema + memorySchema,
  sessionItemsSchema,
  eventLayoutV2,
  nodesSchema,
  multiNodeSchema,
  busTsSqlite,
  oneEventIndexSqlite,
  approvalsSqlite,
  schedulesSqlite,
  approvalResumeSqlite,
  openRunTasksSqlite,
  narrowTaskIndexes,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
