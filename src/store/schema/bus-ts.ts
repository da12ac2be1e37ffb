/**
 * Schema version 6: events indexed by (bus, ts), so `trim_bus beforeTs` is a range delete of
 * the events it removes instead of a walk over the bus's whole range (at 1 M events a trim of
 * 25 read 33 MB). On SQLite the bus is the rowid's upper bits (`id >> 40`, see
 * event-layout.ts), so the index is on that expression; the trim's WHERE names the same
 * expression to use it. Age retention across all buses used `events_ts` until version 7
 * (one-event-index.ts), which dropped it: the sweep now walks this index bus by bus.
 */
import { SEQ_BITS } from "./event-layout.js";

/** The SQLite step. */
export const busTsSqlite = /* sql */ `
CREATE INDEX events_bus_ts ON events ((id >> ${SEQ_BITS}), ts);
`;

/** The PostgreSQL step (events are keyed (bus, seq) there). */
export const busTsPg = /* sql */ `
CREATE INDEX events_bus_ts ON events (bus, ts);
`;
