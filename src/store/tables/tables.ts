/**
 * Every store table, defined once: the map from table name to its columns (the files beside this
 * one), and `Row`, the type of a table's row that the stores read. A new column goes in a new
 * migration of each engine (never an edit of a shipped one) and in its table's definition here;
 * test/store-pg/table-columns.test.ts fails until the two agree, on SQLite and on PostgreSQL.
 */
import type { SqlDialect } from "../sql.js";
import type { RowOf, TableDef } from "./columns.js";
import { BUSES, CLAW_META, EVENTS, IDEMPOTENCY, META } from "./core-tables.js";
import { APPROVAL_POLICIES, APPROVALS, NODES, SCHEDULE_FIRINGS, SCHEDULES } from "./service-tables.js";
import { MESSAGES, RUNS, SESSION_LEASES, SESSION_QUEUE, SESSIONS } from "./session-tables.js";
import { MEMORY, RECEIPTS, TASKS, TELEMETRY } from "./task-tables.js";

/**
 * Every table of both engines' schemas, by name. A table one engine alone has (`claw_meta`) has
 * every column `only` on that engine.
 */
export const TABLES = {
  claw_meta: CLAW_META,
  meta: META,
  buses: BUSES,
  events: EVENTS,
  idempotency: IDEMPOTENCY,
  sessions: SESSIONS,
  messages: MESSAGES,
  runs: RUNS,
  session_queue: SESSION_QUEUE,
  session_leases: SESSION_LEASES,
  tasks: TASKS,
  receipts: RECEIPTS,
  telemetry: TELEMETRY,
  memory: MEMORY,
  nodes: NODES,
  approvals: APPROVALS,
  approval_policies: APPROVAL_POLICIES,
  schedules: SCHEDULES,
  schedule_firings: SCHEDULE_FIRINGS,
} as const satisfies Record<string, TableDef>;

/** A store table's name. */
export type TableName = keyof typeof TABLES;

/**
 * A row of table `N` as both stores return it (`SELECT *`, `RETURNING *`): the columns both
 * engines have. `Row<N, "sqlite">` and `Row<N, "postgres">` are one engine's, for the code that
 * runs on it alone (the event stores). A statement that selects some columns reads
 * `Pick<Row<N>, …>`, so a renamed or dropped column fails to compile where it is read.
 */
export type Row<N extends TableName, D extends SqlDialect = SqlDialect> = RowOf<(typeof TABLES)[N], D>;
