/**
 * Ids for rows created all the time (tasks, runs, messages), ordered by creation time: UUID
 * version 7 (48 bits of Unix milliseconds, then 74 random bits; the `uuid` package keeps them
 * increasing within a millisecond too). A new row's key then lands at the right edge of each
 * index on it, on a page the last insert touched already, instead of a random page of a B-tree
 * that outgrows the cache as the database grows. With random (version 4) ids a run task on
 * SQLite wrote 21–22 WAL pages, 19–21 with these: the tasks', runs' and messages' keys and the
 * telemetry's index on task ids had each touched a page of their own (bench/README.md).
 */
import { v7 } from "uuid";

/** A time-ordered UUID (`0193a7c4-…-7…`), as `randomUUID()` writes one. */
export function orderedUuid(): string {
  return v7();
}

/** A time-ordered UUID's 32 hex digits, without dashes (for ids with a prefix of their own). */
export function orderedHex(): string {
  return v7().replaceAll("-", "");
}
