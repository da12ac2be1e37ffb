/**
 * One real PostgreSQL server for a test file: started before its tests, stopped after them. For
 * files that need a server of their own (the postgres project's files share the run's server
 * through test/helpers/claw.ts instead).
 */
import { afterAll, beforeAll } from "vitest";
import { type PgServer, type PgServerOptions, startPgServer } from "./pg-server.js";

/** Registers the file's server; read `.url` inside a test or a hook (it exists from beforeAll on). */
export function usePgServer(options: PgServerOptions = {}): { readonly url: string } {
  let server: PgServer | undefined;
  beforeAll(async () => {
    server = await startPgServer(options);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get url() {
      if (!server) throw new Error("usePgServer: the server has not started yet (read .url inside a test or hook)");
      return server.url;
    },
  };
}
