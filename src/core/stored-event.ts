/** The shape of a stored bus event, which the wire encodes and streams carry (the store and the bus produce it). */

/** An event as stored: the payload kept as its JSON text, so fan-out never re-serialises it. */
export interface StoredEvent {
  bus: string;
  seq: number;
  ts: number;
  /** The payload's JSON text. */
  payloadJson: string;
}
