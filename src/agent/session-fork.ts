/** Fork: a new session with the source's settings and its history up to a message. */
import { ClawError } from "../core/errors.js";
import type { Row } from "../store/tables/tables.js";
import type { Session } from "./session-schemas.js";
import type { SessionService } from "./session-service.js";

/**
 * Creates the fork and copies messages up to and including `messageId` (default: all), in one
 * transaction: a failure leaves no half-copied fork behind.
 */
export function forkSession(
  sessions: SessionService,
  source: Session,
  args: { messageId?: string; newSessionKey?: string },
): Promise<Session> {
  const { store } = sessions;
  return store.sql.tx(async (q) => {
    let through: number;
    if (args.messageId !== undefined) {
      const m = await q.get<Pick<Row<"messages">, "seq">>("SELECT seq FROM messages WHERE id = ? AND session_id = ?", [
        args.messageId,
        source.sessionId,
      ]);
      if (!m)
        throw new ClawError("not_found", `no message ${args.messageId} in session ${source.sessionKey}`, {
          messageId: args.messageId,
        });
      through = m.seq;
    } else {
      const last = await q.get<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM messages WHERE session_id = ?", [
        source.sessionId,
      ]);
      through = last?.seq ?? 0;
    }
    const fork = await sessions.create(
      {
        sessionKey: args.newSessionKey,
        name: `${source.name ?? source.sessionKey} (fork)`,
        bus: source.bus,
        model: source.model,
        provider: source.provider,
        instructions: source.instructions ?? undefined,
        streamText: source.streamText,
      },
      q,
    );
    // Unlike start_session, a fork must be new: returning the existing session would hide the mistake.
    if (!fork)
      throw new ClawError("invalid_args", `sessionKey ${args.newSessionKey} is already in use`, {
        issues: [{ path: "newSessionKey", message: "already in use" }],
      });
    await store.copyMessages(source.sessionId, fork.sessionId, through, q);
    return fork;
  });
}
