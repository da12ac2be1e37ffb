/** Fork: a new session with the source's settings and its history up to a message. */
import { ClawError } from "../errors.js";
import type { Session } from "./session-schemas.js";
import type { SessionService } from "./session-service.js";

/** Creates the fork and copies messages up to and including `messageId` (default: all). */
export function forkSession(
  sessions: SessionService,
  source: Session,
  args: { messageId?: string; newSessionKey?: string },
): Session {
  const { store } = sessions;
  const all = store.allMessages(source.sessionId);
  let through = all.at(-1)?.seq ?? 0;
  if (args.messageId !== undefined) {
    const m = all.find((x) => x.id === args.messageId);
    if (!m)
      throw new ClawError("not_found", `no message ${args.messageId} in session ${source.sessionKey}`, {
        messageId: args.messageId,
      });
    through = m.seq;
  }
  if (args.newSessionKey !== undefined && store.find({ sessionKey: args.newSessionKey })) {
    // Unlike start_session, a fork must be new: returning the existing session would hide the mistake.
    throw new ClawError("invalid_args", `sessionKey ${args.newSessionKey} is already in use`, {
      issues: [{ path: "newSessionKey", message: "already in use" }],
    });
  }
  return store.transaction(() => {
    const fork = sessions.ensure({
      sessionKey: args.newSessionKey,
      name: `${source.name ?? source.sessionKey} (fork)`,
      bus: source.bus,
      model: source.model,
      provider: source.provider,
      instructions: source.instructions ?? undefined,
      streamText: source.streamText,
    });
    store.copyMessages(source.sessionId, fork.sessionId, through);
    return fork;
  });
}
