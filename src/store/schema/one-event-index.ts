/**
 * Schema version 7: one secondary index on events instead of two. Every index is written on
 * every insert (two cost ~30% of `out`'s insert throughput, one ~15%), and the (bus, ts) index
 * of version 6 serves age retention too: the sweep walks the buses that hold events and
 * deletes each one's old range of that index (see sqlite-event-store.ts), so `events_ts` goes.
 * PostgreSQL keeps its `events_ts`: its inserts are a server's work, not this process's, and
 * its age sweep is one statement over it; its step only moves the version along.
 */

/** The SQLite step. */
export const oneEventIndexSqlite = /* sql */ `
DROP INDEX events_ts;
`;

/** The PostgreSQL step: nothing changes there (see the file comment). */
export const oneEventIndexPg = /* sql */ `
SELECT 1;
`;
