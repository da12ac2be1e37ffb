/**
 * createClaw for the CLI commands, waiting for its start: a database that cannot be opened (a
 * PostgreSQL server that refuses, a newer schema) fails the command at once with the reason,
 * before anything is served. The commands are long-running programs of their own: their heap
 * is kept in check (heap-guard.ts).
 */
import { type Claw, createClaw } from "../../src/claw/claw.js";
import type { ClawOptions } from "../../src/config/claw-config.js";
import { displayDb } from "../../src/config/store-url.js";
import { startHeapGuard } from "./heap-guard.js";

/** A started claw; throws (having closed it) with a message naming the database when it cannot start. */
export async function startClaw(options: ClawOptions): Promise<Claw> {
  const claw = createClaw(options);
  try {
    await claw.ready();
  } catch (err) {
    await claw.close().catch(() => {});
    throw new Error(`cannot open ${displayDb(claw.config.db)}: ${(err as Error).message}`);
  }
  startHeapGuard();
  return claw;
}
