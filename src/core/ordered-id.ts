/**
 * Ids for rows created all the time (tasks, runs, messages), ordered by creation time: UUID
 * version 7 (48 bits of Unix milliseconds, then 74 random bits, kept increasing within a
 * millisecond too). A new row's key then lands at the right edge of each index on it, on a page
 * the last insert touched already, instead of a random page of a B-tree that outgrows the cache
 * as the database grows. With random (version 4) ids a run task on SQLite wrote 21–22 WAL
 * pages, 19–21 with these: the tasks', runs' and messages' keys and the telemetry's index on
 * task ids had each touched a page of their own (bench/README.md).
 *
 * `uuid` lays out the bytes; the random bytes come from a pool filled 4 KiB at a time, since its
 * own draw (16 bytes through Web Crypto's `getRandomValues`, per id) made an id cost ~5.9 µs of
 * CPU against ~1.4 µs so. Given its random bytes, `uuid` keeps no state, so the time and the
 * sequence that keep ids increasing within a millisecond are kept here, as it keeps them.
 */
import { randomFillSync } from "node:crypto";
import { v7 } from "uuid";

const pool = Buffer.alloc(4096);
let drawn = pool.length;

/** 16 fresh random bytes (a view of the pool, used before the next draw). */
function random16(): Uint8Array {
  if (drawn + 16 > pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  drawn += 16;
  return pool.subarray(drawn - 16, drawn);
}

/** The last id's time and 32-bit sequence (`uuid`'s own state when it draws the bytes). */
const last = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };

/** A time-ordered UUID (`0193a7c4-…-7…`), as `randomUUID()` writes one. */
export function orderedUuid(): string {
  const random = random16();
  const now = Date.now();
  if (now > last.msecs) {
    // A new millisecond starts from a random sequence (31 bits: room to count up).
    last.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    last.msecs = now;
  } else {
    // The same millisecond (or the clock went back): one more, and on overflow the next ms.
    last.seq = (last.seq + 1) | 0;
    if (last.seq === 0) last.msecs++;
  }
  return v7({ random, msecs: last.msecs, seq: last.seq });
}

/** A time-ordered UUID's 32 hex digits, without dashes (for ids with a prefix of their own). */
export function orderedHex(): string {
  return orderedUuid().replaceAll("-", "");
}
