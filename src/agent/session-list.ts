/** list_sessions: newest first with a position cursor, or only the sessions running now. */
import { ClawError } from "../core/errors.js";
import type { Session } from "./session-schemas.js";
import type { SessionService } from "./session-service.js";

/** One page of sessions, each with `isRunning`. */
export async function listSessions(
  sessions: SessionService,
  args: { active?: boolean; limit: number; cursor?: string; maxBytes: number },
): Promise<{ sessions: Array<Session & { isRunning: boolean }>; nextCursor: string | null }> {
  if (args.active) {
    // Few sessions run at once: list them all, no paging.
    const rows = await Promise.all(
      (await sessions.activeSessionIds()).map((sessionId) => sessions.store.find({ sessionId })),
    );
    const running = rows.flatMap((row) => (row ? [{ ...row, isRunning: true }] : []));
    return { sessions: running.sort((a, b) => b.createdAt - a.createdAt).slice(0, args.limit), nextCursor: null };
  }
  const before = args.cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(args.cursor);
  if (!Number.isSafeInteger(before))
    throw new ClawError("invalid_args", "cursor is not one this server returned", {
      issues: [{ path: "cursor", message: "invalid cursor" }],
    });
  const page = await sessions.store.listPage(before, args.limit, args.maxBytes);
  const rows = page.sessions;
  const running = await sessions.running(rows.map((r) => r.sessionId));
  return {
    sessions: rows.map(({ cursor: _c, ...row }) => ({ ...row, isRunning: running.has(row.sessionId) })),
    nextCursor: page.more ? String(rows.at(-1)!.cursor) : null,
  };
}
