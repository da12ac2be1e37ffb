/**
 * Global setup of the "postgres" vitest project: one PostgreSQL server for the whole run (each
 * claw then gets a database of its own on it, see test/helpers/claw.ts), stopped when the run
 * ends. Tests read its URL with `inject("pgUrl")`. With TSCLAW_TEST_PG_URL set (for instance to
 * what `npm run pg` printed) the run uses that server instead of starting one.
 */
import type { TestProject } from "vitest/node";
import { startPgServer } from "./pg-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** postgres:// URL of the run's server (its "postgres" database). */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TSCLAW_TEST_PG_URL;
  if (given) {
    project.provide("pgUrl", given);
    return async () => {};
  }
  const server = await startPgServer();
  project.provide("pgUrl", server.url);
  return () => server.stop();
}
