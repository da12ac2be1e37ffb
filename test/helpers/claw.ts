/** Test claws: in-memory by default, outputs validated against their schemas, a fake key. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebSocket } from "ws";
import { connectClaw } from "../../src/client.js";
import { type Claw, type ClawOptions, createClaw } from "../../src/index.js";
import { startServer } from "./server.js";

/** A claw on ":memory:" with output validation on. Remember to close it (or use `using`-style afterEach). */
export function memClaw(options: ClawOptions = {}): Claw {
  return createClaw({
    db: ":memory:",
    validateOutputs: true,
    project: "test",
    env: { ...process.env, OPENROUTER_API_KEY: "test-key" },
    ...options,
  });
}

/** A fresh temporary directory. */
export function tempDir(prefix = "tsclaw-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** True when the typed-API suite runs against connectClaw() (the "remote" vitest project). */
export const REMOTE = process.env.TSCLAW_TEST_CLAW === "remote";

/**
 * The claw of the typed-API suite. Locally it is {@link memClaw}; in the "remote" project the
 * same claw is served on port 0 and its handles (`bus`, `bash`, `session`, `task`, `memory`,
 * `continuity`, `call`, `do`) are connectClaw()'s, so the same assertions run through the client.
 * `services`, `config` and `identity` stay the local ones, for tests that look inside.
 */
export async function apiClaw(options: ClawOptions = {}): Promise<Claw> {
  const local = memClaw(options);
  if (!REMOTE) return local;
  await local.ready(); // its identity getter is copied below
  const server = await startServer(local);
  const remote = await connectClaw({ url: server.url, token: server.policy.token, WebSocket });
  const { ops: _o, doc: _d, close: _c, ...handles } = remote;
  return {
    ...local,
    ...(handles as unknown as Partial<Claw>),
    close: async () => {
      await remote.close();
      await server.close();
    },
  } as Claw;
}
