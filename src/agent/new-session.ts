/**
 * A new session's row, before it is stored: its id, its key (the id when none is given), and the
 * defaults of the claw's configuration for what the caller left out.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_BUS } from "../bus/bus-name.js";
import { assertWritableBus } from "../bus/reserved-buses.js";
import type { ClawConfig } from "../config/claw-config.js";
import { checkKnownProvider, defaultModelFor } from "./provider.js";
import type { EnsureSessionArgs, Session } from "./session-schemas.js";

/** The session `args` describe; throws `invalid_args` for a server bus or an unknown provider. */
export function newSession(config: ClawConfig, args: EnsureSessionArgs): Session {
  // The session's events go to its bus: never one of the server's own.
  if (args.bus !== undefined) assertWritableBus(args.bus, "a session's bus");
  const provider = args.provider ?? config.provider;
  checkKnownProvider(config, provider);
  const now = Date.now();
  const sessionId = `ses_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
  return {
    sessionId,
    sessionKey: args.sessionKey ?? sessionId,
    name: args.name ?? null,
    bus: args.bus ?? DEFAULT_BUS,
    model: args.model ?? defaultModelFor(config, provider),
    provider,
    instructions: args.instructions ?? null,
    streamText: args.streamText ?? false,
    createdAt: now,
    updatedAt: now,
  };
}
