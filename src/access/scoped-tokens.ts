/**
 * Scoped tokens: minted for one agent run or one `bash` call, handed to its bash as
 * `CLAW_TOKEN`, accepted by the server's access check, and revoked when the run or call ends.
 * They live in memory only, so a restart revokes every one of them: a token copied out of a
 * script's environment is worth nothing once its run is over.
 */
import { createHash, randomBytes } from "node:crypto";
import { ClawError } from "../core/errors.js";
import type { TokenScope } from "./token-scope.js";

/** What a presented scoped token grants. */
export interface ScopedGrant {
  readonly scope: TokenScope;
  /** Aborted when the token is revoked: streams opened with it end then. */
  readonly signal: AbortSignal;
}

/** A minted token and how to end it. */
export interface MintedToken {
  /** The secret to hand to the script (prefix `clawrun_`). */
  readonly token: string;
  /** Revokes it; later requests with it get 401, streams opened with it end. Idempotent. */
  revoke(): void;
}

/** Prefix of every scoped token: tells a reader of a log line what kind of credential it saw. */
export const SCOPED_TOKEN_PREFIX = "clawrun_";

// The map is keyed by a hash of the token: a lookup's timing depends on the hash, which tells an
// attacker nothing about the token itself.
const keyOf = (token: string) => createHash("sha256").update(token).digest("base64");

/** The live scoped tokens of one claw. */
export class ScopedTokens {
  private readonly live = new Map<string, ScopedGrant & { controller: AbortController }>();

  /** Number of live tokens (runs and calls in progress that hold one). */
  get size(): number {
    return this.live.size;
  }

  /** Mints a token for `scope`; revoke it when the run or call ends. */
  mint(scope: TokenScope): MintedToken {
    const token = `${SCOPED_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
    const key = keyOf(token);
    const controller = new AbortController();
    this.live.set(key, { scope, signal: controller.signal, controller });
    return {
      token,
      revoke: () => {
        const grant = this.live.get(key);
        if (!grant) return;
        this.live.delete(key);
        grant.controller.abort();
      },
    };
  }

  /** The grant of a live token, or undefined (unknown, revoked, or not a scoped token). */
  resolve(token: string): ScopedGrant | undefined {
    if (!token.startsWith(SCOPED_TOKEN_PREFIX)) return undefined;
    const grant = this.live.get(keyOf(token));
    return grant ? { scope: grant.scope, signal: grant.signal } : undefined;
  }

  /** Revokes every token (the claw closes). */
  revokeAll(): void {
    for (const grant of this.live.values()) grant.controller.abort();
    this.live.clear();
  }
}

/** Throws `unauthorized` when `grant`'s token was revoked after the connection was opened with it. */
export function assertLive(grant: ScopedGrant): void {
  if (grant.signal.aborted)
    throw new ClawError(
      "unauthorized",
      `this token belonged to ${grant.scope.owner}, which has ended; a scoped token is valid only while its run lasts`,
    );
}
