/**
 * Schema version 4: one row per running process ("node") on the database, for list_nodes and
 * for telling live nodes from dead ones. A node writes its row when it starts and renews
 * last_heartbeat every third of its lease; it deletes the row when it closes cleanly. A node
 * whose heartbeat is older than its own lease_ms is not alive. Times are epoch milliseconds.
 */
export const nodesSchema = /* sql */ `
CREATE TABLE nodes (
  node           TEXT PRIMARY KEY,
  url            TEXT,
  started_at     INTEGER NOT NULL,
  last_heartbeat INTEGER NOT NULL,
  lease_ms       INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** The same table in PostgreSQL (its schema version 4 too), for the PostgreSQL migrations. */
export const nodesPgSchema = /* sql */ `
CREATE TABLE nodes (
  node           TEXT COLLATE "C" PRIMARY KEY,
  url            TEXT,
  started_at     BIGINT NOT NULL,
  last_heartbeat BIGINT NOT NULL,
  lease_ms       BIGINT NOT NULL
);
`;
