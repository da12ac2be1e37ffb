/** The services an operation handler can reach, built once per claw by createClaw. */

import type { ScopedTokens } from "../access/scoped-tokens.js";
import type { StreamTickets } from "../access/stream-tickets.js";
import type { SessionService } from "../agent/session-service.js";
import type { BashRunner } from "../bash/bash-runner.js";
import type { BusService } from "../bus/bus-service.js";
import type { ClawConfig } from "../config/claw-config.js";
import type { CallRegistry } from "../core/call-registry.js";
import type { Identity } from "../nodes/identity.js";
import type { NodeService } from "../nodes/node-service.js";
import type { AnyOpDef } from "../ops/registry.js";
import type { ScheduleService } from "../schedules/schedule-service.js";
import type { Db } from "../store/db.js";
import type { Sql } from "../store/sql.js";
import type { StorageGuard } from "../store/storage-guard.js";
import type { MemoryService } from "../tasks/memory-service.js";
import type { TaskService } from "../tasks/task-service.js";

/** Everything handlers use. */
export interface Services {
  config: ClawConfig;
  /** The SQLite connection (being replaced by `sql`, which both stores implement). */
  db: Db;
  /** The storage every service queries: SQLite or PostgreSQL. */
  sql: Sql;
  identity: Identity;
  /** This process as a node of the database: its id, heartbeat, and every node (list_nodes). */
  nodes: NodeService;
  bus: BusService;
  bash: BashRunner;
  sessions: SessionService;
  tasks: TaskService;
  memory: MemoryService;
  /** Schedules, their firings, and this node's scheduler. */
  schedules: ScheduleService;
  /** Tokens minted for runs and bash calls (handed to their scripts as CLAW_TOKEN). */
  tokens: ScopedTokens;
  /** Single-use tickets for GET streams (`stream_ticket`). */
  tickets: StreamTickets;
  /** Whether the database files are still the ones opened. */
  storage: StorageGuard;
  /** Calls in flight named by a callId (cancel_call). */
  calls: CallRegistry;
  /** Every registered operation (for `ops`, `doc`, server_identity). */
  ops: readonly AnyOpDef[];
}
