/**
 * Memory search in both engines' full-text search: SQLite FTS5 (bm25) and PostgreSQL (a
 * tsvector column ranked with ts_rank). User text is never parsed as query syntax: only word
 * characters are kept, and terms are OR-ed so entries matching more of them rank first.
 */
import type { SqlDialect } from "../store/sql.js";

/** Most terms used from one query. */
export const MAX_TERMS = 32;

/** Longest accepted query text: bounds the work one search can ask for (a 10 MiB query took 0.3 s of event loop). */
export const MAX_QUERY_CHARS = 4096;

/** The distinct lower-cased words of `text`, at most MAX_TERMS of them. */
export function queryTerms(text: string): string[] {
  const terms = new Set<string>();
  // Stops at the 32nd distinct term: the rest of the text is never scanned.
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    terms.add(m[0].toLowerCase());
    if (terms.size >= MAX_TERMS) break;
  }
  return [...terms];
}

/** The FTS5 MATCH expression for `text` (each term a quoted string), or null when it has no searchable term. */
export function ftsQuery(text: string): string | null {
  const terms = queryTerms(text);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}

/** A search statement: `?` are the query, the project and the limit; rows carry `score` (higher is better). */
export interface MemorySearch {
  text: string;
  query: string;
}

/**
 * The memory search for `dialect`, or null when `text` has no searchable term. PostgreSQL gets
 * `to_tsquery` over bare words joined by `|` (words hold only letters and digits, so nothing in
 * them is an operator); its 'english' configuration stems as FTS5's porter tokenizer does.
 */
export function memorySearch(dialect: SqlDialect, text: string): MemorySearch | null {
  const terms = queryTerms(text);
  if (terms.length === 0) return null;
  if (dialect === "postgres")
    return {
      query: terms.join(" | "),
      text: `SELECT m.rowid AS rowid, octet_length(m.text) + octet_length(m.tags) AS size, ts_rank(m.fts, q.query) AS score
        FROM memory m, to_tsquery('english', ?) AS q(query)
        WHERE m.fts @@ q.query AND m.project = ? ORDER BY score DESC, m.created_at DESC, m.rowid DESC LIMIT ? OFFSET ?`,
    };
  return {
    query: ftsQuery(text)!,
    text: `SELECT m.rowid AS rowid, octet_length(m.text) + octet_length(m.tags) AS size, -bm25(memory_fts) AS score
      FROM memory_fts JOIN memory m ON m.rowid = memory_fts.rowid
      WHERE memory_fts MATCH ? AND m.project = ? ORDER BY score DESC, m.created_at DESC, m.rowid DESC LIMIT ? OFFSET ?`,
  };
}
