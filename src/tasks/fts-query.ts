/**
 * Builds a safe FTS5 query from user text: only word characters are kept, each term is a quoted
 * string (so FTS5 operators, quotes, parentheses, column filters and `*` in user text are
 * plain text), and terms are OR-ed so bm25 ranks entries matching more of them first.
 */

/** Most terms used from one query. */
export const MAX_TERMS = 32;

/** Longest accepted query text: bounds the work one search can ask for (a 10 MiB query took 0.3 s of event loop). */
export const MAX_QUERY_CHARS = 4096;

/** The FTS5 MATCH expression for `text`, or null when it has no searchable term. */
export function ftsQuery(text: string): string | null {
  const terms = new Set<string>();
  // Stops at the 32nd distinct term: the rest of the text is never scanned.
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    terms.add(m[0].toLowerCase());
    if (terms.size >= MAX_TERMS) break;
  }
  if (terms.size === 0) return null;
  return [...terms].map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}
