/** Continuity memory with FTS5 search. */
import type { ClawConfig } from "../config.js";
import type { Db } from "../store/db.js";

/** Owns memory entries. */
export class MemoryService {
  constructor(readonly deps: { config: ClawConfig; db: Db }) {}
}
