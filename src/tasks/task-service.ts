/** Tasks: the run contract and the completion contract. */
import type { SessionService } from "../agent/session-service.js";
import type { BusService } from "../bus/bus-service.js";
import type { ClawConfig } from "../config.js";
import type { Identity } from "../identity.js";
import type { Db } from "../store/db.js";

/** What the task service is built from. */
export interface TaskServiceDeps {
  config: ClawConfig;
  db: Db;
  bus: BusService;
  sessions: SessionService;
  identity: Identity;
}

/** Owns tasks, receipts and telemetry. */
export class TaskService {
  constructor(readonly deps: TaskServiceDeps) {}

  /** Restart recovery and the start of queued work. */
  start(): void {}

  /** Stops runners; in-flight tasks are marked interrupted. */
  async close(): Promise<void> {}
}
