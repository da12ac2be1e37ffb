/**
 * Builds a safe FTS5 query from user text: only word characters are kept, each term is a quoted
 * string (so FTS5 operators, quotes, parentheses, column filters and `*` in user text are
 * plain text), and terms are OR-ed so bm25 ranks entries matching more of them first.
 */

/** Most terms used from one query. */
const MAX_TERMS = 32;

/** The FTS5 MATCH expression for `text`, or null when it has no searchable term. */
export function ftsQuery(text: string): string | null {
  const terms = [...new Set((text.match(/[\p{L}\p{N}]+/gu) ?? []).map((t) => t.toLowerCase()))].slice(0, MAX_TERMS);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}
