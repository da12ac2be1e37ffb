/**
 * Schema version 2: event payloads out of the clustered index. Version 1 kept events in a
 * WITHOUT ROWID table (an index b-tree), whose interior cells hold whole records: one large
 * payload that became a divider key made every seek on any bus read its overflow chain (a
 * 50 MB row turned each lookup into 12 800 page reads). Here events live in a rowid table
 * (interior cells hold only integer keys), the (bus, seq) and (bus, ts) lookups are small
 * indexes, and `size` (the payload's UTF-8 bytes) comes before the payload, so a page can be
 * planned by bytes without touching any payload. `buses` keeps count and first seq, so
 * list_buses and trims never count rows.
 */
export const eventLayoutV2 = /* sql */ `
CREATE TABLE events_v2 (
  id      INTEGER PRIMARY KEY,
  bus     TEXT NOT NULL,
  seq     INTEGER NOT NULL,
  ts      INTEGER NOT NULL,
  size    INTEGER NOT NULL,
  payload TEXT NOT NULL
);
INSERT INTO events_v2 (bus, seq, ts, size, payload)
  SELECT bus, seq, ts, length(CAST(payload AS BLOB)), payload FROM events ORDER BY bus, seq;
DROP TABLE events;
ALTER TABLE events_v2 RENAME TO events;
CREATE UNIQUE INDEX events_bus_seq ON events (bus, seq);
CREATE INDEX events_bus_ts ON events (bus, ts);

ALTER TABLE buses ADD COLUMN first_seq INTEGER NOT NULL DEFAULT 1;
ALTER TABLE buses ADD COLUMN count INTEGER NOT NULL DEFAULT 0;
UPDATE buses SET
  count = (SELECT COUNT(*) FROM events e WHERE e.bus = buses.bus),
  first_seq = COALESCE((SELECT MIN(seq) FROM events e WHERE e.bus = buses.bus), last_seq + 1);
`;
