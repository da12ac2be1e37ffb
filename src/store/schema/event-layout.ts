/**
 * Schema version 3: event payloads out of any index's keys. Version 1 kept events in a WITHOUT
 * ROWID table (an index b-tree), whose interior cells hold whole records: one large payload
 * that became a divider key made every seek on any bus read its overflow chain (a 50 MB row
 * turned each lookup into 12 800 page reads). Now each bus has an integer id and an event's
 * rowid is `busId << 40 | seq`: a rowid table's interior cells hold only those integers, the
 * events of one bus stay one clustered range (a cursor read is one range scan, as before), and
 * `size` (the payload's UTF-8 bytes) comes before the payload, so a page is planned by bytes
 * without reading payloads past its budget. `buses` keeps count and first seq, so list_buses
 * and trims never count rows.
 */

/** Bits of the rowid that hold the seq: 2^40 events per bus, 2^23 buses. */
export const SEQ_BITS = 40;

export const eventLayoutV2 = /* sql */ `
CREATE TABLE buses_v2 (
  id        INTEGER PRIMARY KEY,
  bus       TEXT NOT NULL UNIQUE,
  last_seq  INTEGER NOT NULL,
  first_seq INTEGER NOT NULL,
  count     INTEGER NOT NULL
);
INSERT INTO buses_v2 (bus, last_seq, first_seq, count)
  SELECT b.bus, b.last_seq,
         COALESCE((SELECT MIN(seq) FROM events e WHERE e.bus = b.bus), b.last_seq + 1),
         (SELECT COUNT(*) FROM events e WHERE e.bus = b.bus)
    FROM buses b ORDER BY b.bus;

CREATE TABLE events_v2 (
  id      INTEGER PRIMARY KEY,
  ts      INTEGER NOT NULL,
  size    INTEGER NOT NULL,
  payload TEXT NOT NULL
);
INSERT INTO events_v2 (id, ts, size, payload)
  SELECT (b.id << ${SEQ_BITS}) | e.seq, e.ts, length(CAST(e.payload AS BLOB)), e.payload
    FROM events e JOIN buses_v2 b ON b.bus = e.bus ORDER BY b.id, e.seq;

DROP TABLE events;
DROP TABLE buses;
ALTER TABLE buses_v2 RENAME TO buses;
ALTER TABLE events_v2 RENAME TO events;
CREATE INDEX events_ts ON events (ts);
`;
