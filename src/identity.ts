/** This instance's stable identity, kept in the database's meta table. */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "./store/db.js";
import { SCHEMA_VERSION } from "./store/migrations.js";
import { VERSION } from "./version.js";

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

/** Reads (or creates once) the instance id and builds the identity. */
export function loadIdentity(db: Db, name: string, project: string): Identity {
  const row = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'instance'").get();
  let instance = row?.value;
  if (!instance) {
    instance = randomUUID();
    db.prepare("INSERT INTO meta (key, value) VALUES ('instance', ?)").run(instance);
  }
  return { instance, name, version: VERSION, project, startedAt: Date.now(), schemaVersion: SCHEMA_VERSION };
}
