/**
 * Nesting depth of a JSON value, bounded: JSON.parse reads any depth, but JSON.stringify and
 * most clients' parsers recurse, so a value nested thousands deep is stored fine and then cannot
 * be answered. What is checked with this is refused before it gets that deep.
 */

/**
 * Nesting depth of a JSON value (a scalar is 0, `[]` and `{}` are 1), counted up to
 * `limit + 1`: the walk never goes deeper than that, so a value 100 000 levels deep cannot
 * overflow the stack, and it allocates nothing (it runs on every published event).
 */
export function jsonDepth(value: unknown, limit: number): number {
  if (value === null || typeof value !== "object") return 0;
  if (limit <= 0) return 1;
  let max = 0;
  if (Array.isArray(value)) {
    for (const v of value) {
      const d = jsonDepth(v, limit - 1);
      if (d > max) max = d;
      if (max >= limit) break;
    }
  } else {
    for (const k in value) {
      const d = jsonDepth((value as Record<string, unknown>)[k], limit - 1);
      if (d > max) max = d;
      if (max >= limit) break;
    }
  }
  return max + 1;
}
