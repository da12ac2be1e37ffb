/**
 * One real PostgreSQL server for a test file: started before its tests, stopped after them. For
 * files that need a server of their own (the postgres project's files share the run's server
 * through test/helpers/claw.ts instead).
 */
import { afterAll, beforeAll } from "vitest";
import { type OpenedPg, openPg } from "../../src/store/pg/open-pg.js";
import {
  createTestDatabase,
  dropTestDatabase,
  type PgServer,
  type PgServerOptions,
  startPgServer,
} from "./pg-server.js";

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

/**
 * A fresh database on a server of the file's own, opened as a claw opens it (openPg: migrated,
 * pooled): ready from beforeAll on, closed and dropped after the file's tests.
 */
export function useOpenedPg(): { readonly db: OpenedPg; readonly url: string } {
  let server: PgServer | undefined;
  let url: string | undefined;
  let db: OpenedPg | undefined;
  beforeAll(async () => {
    server = await startPgServer();
    url = await createTestDatabase(server.url);
    db = await openPg(url);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    if (url) await dropTestDatabase(url);
    await server?.stop();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error("useOpenedPg: the database is not open yet (read it inside a test or hook)");
    return value;
  };
  return {
    get db() {
      return ready(db);
    },
    get url() {
      return ready(url);
    },
  };
}
