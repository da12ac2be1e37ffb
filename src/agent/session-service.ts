/** Sessions and their agent runs. */
import type { BashRunner } from "../bash/bash-runner.js";
import type { BusService } from "../bus/bus-service.js";
import type { ClawConfig } from "../config.js";
import type { Db } from "../store/db.js";

/** What the session service is built from. */
export interface SessionServiceDeps {
  config: ClawConfig;
  db: Db;
  bus: BusService;
  bash: BashRunner;
}

/** Owns sessions, messages and runs. */
export class SessionService {
  constructor(readonly deps: SessionServiceDeps) {}

  /** Aborts running runs and waits for them to end. */
  async close(): Promise<void> {}
}
