/** This instance's stable identity, kept in the database's meta table. */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { VERSION } from "../core/version.js";
import { SCHEMA_VERSION } from "../store/migrations.js";
import type { Sql } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";

/** This instance's identity (server_identity adds its operations and model defaults). */
export const identitySchema = z.object({
  instance: z.string().describe("Stable id of this instance (stored in its database)"),
  name: z.string().describe("Human name of this instance (--name)"),
  version: z.string().describe("tsclaw version"),
  project: z.string().describe("Default project of tasks and memory"),
  startedAt: z.number().describe("When this process started, epoch ms"),
  schemaVersion: z.number().int().describe("Database schema version"),
});

/** What server_identity reports about the instance. */
export type Identity = z.infer<typeof identitySchema>;

const READ = "SELECT value FROM meta WHERE key = 'instance'";

/**
 * Reads (or creates once) the instance id and builds the identity. Servers starting together
 * on one database agree on the id: the first insert wins and every one reads it back.
 */
export async function loadIdentity(sql: Sql, name: string, project: string): Promise<Identity> {
  let row = await sql.get<Pick<Row<"meta">, "value">>(READ);
  if (!row) {
    await sql.run("INSERT INTO meta (key, value) VALUES ('instance', ?) ON CONFLICT (key) DO NOTHING", [randomUUID()]);
    row = await sql.get<Pick<Row<"meta">, "value">>(READ);
  }
  const instance = row!.value;
  return { instance, name, version: VERSION, project, startedAt: Date.now(), schemaVersion: SCHEMA_VERSION };
}
