/**
 * Recovery of the sessions' work that a process left behind (at start-up, or on a node's
 * heartbeat for nodes that are gone): runs left "running" end as interrupted, and the prompts
 * that were acknowledged but never run are claimed and run here, in their order.
 */
import { liveNodes } from "../nodes/owners.js";
import type { Sql } from "../store/sql.js";
import type { Session } from "./session-schemas.js";
import type { SessionStore } from "./session-store.js";

/** What recovery works with. */
export interface RecoveryDeps {
  sql: Sql;
  /** This node's id. */
  node: string;
  store: SessionStore;
  log: (line: string) => void;
  /** Throws when the session's provider cannot be called now (no key). */
  checkProvider(session: Session): void;
  /** Runs the session's stored prompt `queuedId` in the session's turn. */
  runQueued(session: Session, queuedId: number): void;
}

/**
 * Ends the runs of gone processes as interrupted and runs their queued prompts here. `restart`
 * says whose they are in the log line: this database's last process, or lost nodes.
 */
export async function recoverSessions(d: RecoveryDeps, restart: boolean): Promise<void> {
  const live = await liveNodes(d.sql, d.node);
  const interrupted = await d.store.runs.interruptStale(live);
  if (interrupted > 0)
    d.log(
      restart
        ? `tsclaw: ${interrupted} session run(s) were interrupted by the last shutdown`
        : `tsclaw: ${interrupted} session run(s) of lost nodes were marked interrupted`,
    );
  for (const { id, sessionId } of await d.store.queue.claimPrompts(live)) {
    const session = await d.store.find({ sessionId });
    if (!session) continue;
    try {
      d.checkProvider(session);
    } catch (err) {
      // No key for its provider now: the prompt stays stored for a start that has one.
      d.log(`tsclaw: a queued prompt of ${session.sessionKey} waits: ${(err as Error).message}`);
      continue;
    }
    d.runQueued(session, id);
  }
}
