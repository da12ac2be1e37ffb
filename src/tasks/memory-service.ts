/**
 * Continuity memory: short notes per project, searchable with the store's full-text search
 * (SQLite FTS5, bm25-ranked; PostgreSQL tsvector, ts_rank-ranked; see fts-query.ts).
 *
 * The PostgreSQL `memory` table has the SQLite columns (src/store/schema/memory.ts) with
 * `rowid` an identity column (newest-first ties break on it) and, in place of the FTS5 table
 * and its triggers, a generated tsvector column `fts` with a GIN index:
 *
 *   CREATE TABLE memory (
 *     rowid       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
 *     id          TEXT NOT NULL UNIQUE,
 *     text        TEXT NOT NULL,
 *     project     TEXT NOT NULL,
 *     session_key TEXT,
 *     tags        TEXT NOT NULL DEFAULT '[]',
 *     created_at  BIGINT NOT NULL,
 *     fts         tsvector GENERATED ALWAYS AS (to_tsvector('english', text || ' ' || tags)) STORED
 *   );
 *   CREATE INDEX memory_project ON memory (project, created_at);
 *   CREATE INDEX memory_fts ON memory USING GIN (fts);
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ClawConfig } from "../config/claw-config.js";
import { projectNameSchema } from "../config/project-name.js";
import { fitBytes, pageBytesInput } from "../core/byte-page.js";
import { ClawError } from "../core/errors.js";
import { inList } from "../store/in-list.js";
import type { Sql } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";
import { MAX_QUERY_CHARS, MAX_TERMS, memorySearch } from "./fts-query.js";
import { IdempotencyStore } from "./idempotency.js";

/** Arguments of memory_add. */
export const memoryAddInput = z
  .object({
    text: z
      .string()
      .refine((s) => s.trim() !== "", "text must not be blank")
      .describe("The note to remember"),
    project: projectNameSchema.optional().describe("Default: the server's project"),
    sessionKey: z.string().min(1).max(200).optional().describe("Session the note belongs to"),
    tags: z.array(z.string().min(1).max(100)).max(50).default([]).describe("Searchable tags. Default: []"),
    idempotencyKey: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Same key + same arguments replays (replayed: true); other arguments: idempotency_conflict"),
  })
  .strict();
/** Inferred from its schema. */
export type MemoryAddArgs = z.output<typeof memoryAddInput>;

/** Arguments of memory_search. */
export const memorySearchInput = z
  .object({
    query: z
      .string()
      .max(
        MAX_QUERY_CHARS,
        `a query is at most ${MAX_QUERY_CHARS} characters (only its first ${MAX_TERMS} words count)`,
      )
      .describe(
        `Words to look for, at most ${MAX_QUERY_CHARS} characters; any text is safe (it is never parsed as FTS5 syntax)`,
      ),
    project: z.string().min(1).optional().describe("Default: the server's project"),
    limit: z.number().int().min(1).max(100).default(10).describe("1-100. Default: 10"),
    maxBytes: pageBytesInput,
    cursor: z.string().max(20).optional().describe("nextCursor of the previous page"),
  })
  .strict();
/** Inferred from its schema. */
export type MemorySearchArgs = z.output<typeof memorySearchInput>;

/** A memory entry. */
export const memoryEntrySchema = z.object({
  memoryId: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  sessionKey: z.string().nullable(),
  createdAt: z.number(),
});
/** Inferred from its schema. */
export type MemoryEntry = z.infer<typeof memoryEntrySchema>;

/** A memory row as an entry reads it. */
export type RawMemory = Pick<Row<"memory">, "id" | "text" | "tags" | "session_key" | "created_at">;

/** A memory row as answered. */
export function memoryEntryOf(r: RawMemory): MemoryEntry {
  return {
    memoryId: r.id,
    text: r.text,
    tags: JSON.parse(r.tags) as string[],
    sessionKey: r.session_key,
    createdAt: r.created_at,
  };
}

/** Bytes counted per entry on top of its text for the other fields and the JSON around them. */
const ENTRY_OVERHEAD = 256;

/** A memory_search answer. */
export interface MemorySearchResult {
  results: (Omit<MemoryEntry, "sessionKey"> & { score: number })[];
  nextCursor: string | null;
}

function decodeOffset(cursor: string): number {
  const n = /^o(\d{1,9})$/.exec(cursor)?.[1];
  if (n === undefined)
    throw new ClawError("invalid_args", "cursor is not one this server returned; pass nextCursor unchanged", {
      issues: [{ path: "cursor", message: "unknown cursor" }],
    });
  return Number(n);
}

const INSERT = "INSERT INTO memory (id, text, project, session_key, tags, created_at) VALUES (?, ?, ?, ?, ?, ?)";
/** Owns memory entries. */
export class MemoryService {
  private readonly idempotency: IdempotencyStore;

  constructor(readonly deps: { config: ClawConfig; sql: Sql }) {
    this.idempotency = new IdempotencyStore(deps.sql);
  }

  /** memory_add, once per idempotency key (the entry is written in the key's transaction). */
  async add(args: MemoryAddArgs): Promise<{ memoryId: string; createdAt: number; replayed: boolean }> {
    const { idempotencyKey, ...request } = args;
    const { result, replayed } = await this.idempotency.once("memory_add", idempotencyKey, request, async (q) => {
      const memoryId = `mem_${randomUUID()}`;
      const createdAt = Date.now();
      await q.run(INSERT, [
        memoryId,
        request.text,
        request.project ?? this.deps.config.project,
        request.sessionKey ?? null,
        JSON.stringify(request.tags),
        createdAt,
      ]);
      return { memoryId, createdAt };
    });
    return { ...result, replayed };
  }

  /**
   * memory_search: best matches first; `score` is higher for better matches. Ranks and sizes
   * first, then the text of the entries that fit in `maxBytes` (the first always).
   */
  async search(args: MemorySearchArgs): Promise<MemorySearchResult> {
    const { sql } = this.deps;
    const search = memorySearch(sql.dialect, args.query);
    const offset = args.cursor === undefined ? 0 : decodeOffset(args.cursor);
    if (search === null) return { results: [], nextCursor: null };
    const ranked = await sql.all<Pick<Row<"memory">, "rowid"> & { size: number; score: number }>(search.text, [
      search.query,
      args.project ?? this.deps.config.project,
      args.limit + 1,
      offset,
    ]);
    const n = fitBytes(
      ranked.map((r) => Number(r.size)),
      args.maxBytes,
      args.limit,
      ENTRY_OVERHEAD,
    );
    const chosen = ranked.slice(0, n);
    const list = inList(chosen.map((r) => Number(r.rowid)));
    const rows =
      n === 0
        ? []
        : await sql.all<RawMemory & Pick<Row<"memory">, "rowid">>(
            `SELECT rowid, id, text, tags, session_key, created_at FROM memory WHERE rowid IN ${list.sql}`,
            list.params,
          );
    const byRow = new Map(rows.map((r) => [Number(r.rowid), r]));
    const results = chosen.flatMap((c) => {
      const r = byRow.get(Number(c.rowid));
      return r
        ? [
            {
              memoryId: r.id,
              text: r.text,
              tags: JSON.parse(r.tags) as string[],
              createdAt: r.created_at,
              score: c.score,
            },
          ]
        : [];
    });
    return { results, nextCursor: ranked.length > n ? `o${offset + n}` : null };
  }
}
