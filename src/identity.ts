/** This instance's stable identity, kept in the database's meta table. */
import { randomUUID } from "node:crypto";
import type { Db } from "./store/db.js";
import { SCHEMA_VERSION } from "./store/migrations.js";
import { VERSION } from "./version.js";

/** What server_identity reports. */
export interface Identity {
  /** Stable id of this database's instance, created once. */
  instance: string;
  name: string;
  version: string;
  project: string;
  startedAt: number;
  schemaVersion: number;
}

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
