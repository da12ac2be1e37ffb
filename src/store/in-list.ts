/**
 * The placeholders of an `IN (…)` list whose length varies from call to call (a page's chosen
 * rows). Prepared statements are kept per text, better-sqlite3's for as long as the connection
 * and PostgreSQL's named ones per connection, so a text per length kept a compiled statement for
 * every length a process met: 100 lengths of a tasks page's list held ~2.9 MiB of native memory.
 * A list of up to 128 values is padded to the next power of two by repeating its last value,
 * which `IN` ignores: at most eight texts. A longer list is rare (recovery's) and goes as it is.
 */
import type { SqlValue } from "./sql.js";

/** Longest list that is padded. */
const PADDED_UP_TO = 128;

/** `(?, ?, …)` for `values` (padded as above) and the values to bind; `(NULL)`, matching nothing, for none. */
export function inList(values: readonly SqlValue[]): { sql: string; params: SqlValue[] } {
  if (values.length === 0) return { sql: "(NULL)", params: [] };
  let length = values.length;
  if (length <= PADDED_UP_TO) length = 2 ** Math.ceil(Math.log2(length));
  const params = [...values];
  while (params.length < length) params.push(values.at(-1)!);
  return { sql: `(${Array(length).fill("?").join(", ")})`, params };
}
