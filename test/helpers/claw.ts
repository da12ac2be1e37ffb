/**
 * Test claws: in-memory by default, outputs validated against their schemas, a fake key. In the
 * "postgres" vitest project (TSCLAW_TEST_STORE=postgres) the typed-API suite's claws each get a
 * fresh database on the run's PostgreSQL instead, dropped when the claw closes.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { WebSocket } from "ws";
import { connectClaw } from "../../src/client.js";
import { type Claw, type ClawOptions, createClaw } from "../../src/index.js";
import { createTestDatabase, dropTestDatabase } from "./pg-server.js";
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

/** The store of the typed-API suite's claws: SQLite in memory, or PostgreSQL (the "postgres" vitest project). */
export const STORE: "sqlite" | "postgres" = process.env.TSCLAW_TEST_STORE === "postgres" ? "postgres" : "sqlite";

/**
 * The claw of the typed-API suite. Locally it is {@link memClaw}; in the "remote" project the
 * same claw is served on port 0 and its handles (`bus`, `bash`, `session`, `task`, `memory`,
 * `continuity`, `call`, `do`) are connectClaw()'s, so the same assertions run through the client.
 * `services`, `config` and `identity` stay the local ones, for tests that look inside.
 */
export async function apiClaw(options: ClawOptions = {}): Promise<Claw> {
  // A test that names its database keeps it; every other claw gets a database of its own.
  const pgDb = STORE === "postgres" && options.db === undefined ? await createTestDatabase(inject("pgUrl")) : undefined;
  const local = memClaw(pgDb ? { ...options, db: pgDb } : options);
  if (pgDb) {
    const closeClaw = local.close;
    // Assigned, not spread: the claw's getters (identity) must stay live.
    Object.assign(local, {
      close: async () => {
        await closeClaw();
        await dropTestDatabase(pgDb);
      },
    });
    if (local.services.sql.dialect !== "postgres") {
      await local.close();
      throw new Error(`the postgres project's claw on ${pgDb} runs on ${local.services.sql.dialect}, not PostgreSQL`);
    }
    await local.ready().catch(async (err) => {
      await local.close();
      throw err;
    });
  }
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
