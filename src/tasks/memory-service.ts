/** Continuity memory: short notes per project, searchable with SQLite FTS5 (bm25-ranked). */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ClawConfig } from "../config.js";
import type { Db } from "../store/db.js";
import type { Sql } from "../store/sql.js";
import { ftsQuery, MAX_QUERY_CHARS, MAX_TERMS } from "./fts-query.js";
import { IdempotencyStore } from "./idempotency.js";

/** Arguments of memory_add. */
export const memoryAddInput = z
  .object({
    text: z
      .string()
      .refine((s) => s.trim() !== "", "text must not be blank")
      .describe("The note to remember"),
    project: z.string().min(1).optional().describe("Default: the server's project"),
    sessionKey: z.string().min(1).optional().describe("Session the note belongs to"),
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

interface RawMemory {
  id: string;
  text: string;
  tags: string;
  session_key: string | null;
  created_at: number;
}

function entry(r: RawMemory): MemoryEntry {
  return {
    memoryId: r.id,
    text: r.text,
    tags: JSON.parse(r.tags) as string[],
    sessionKey: r.session_key,
    createdAt: r.created_at,
  };
}

/** Owns memory entries. */
export class MemoryService {
  private readonly idempotency: IdempotencyStore;
  private readonly sql;

  constructor(readonly deps: { config: ClawConfig; db: Db; sql: Sql }) {
    const db = deps.db;
    this.idempotency = new IdempotencyStore(deps.sql);
    this.sql = {
      insert: db.prepare(
        "INSERT INTO memory (id, text, project, session_key, tags, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      search: db.prepare<[string, string, number], RawMemory & { rank: number }>(
        `SELECT m.id, m.text, m.tags, m.session_key, m.created_at, bm25(memory_fts) AS rank
         FROM memory_fts JOIN memory m ON m.rowid = memory_fts.rowid
         WHERE memory_fts MATCH ? AND m.project = ? ORDER BY rank, m.created_at DESC LIMIT ?`,
      ),
      recent: db.prepare<[string, number], RawMemory>(
        "SELECT id, text, tags, session_key, created_at FROM memory WHERE project = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
      ),
      recentOfSession: db.prepare<[string, string, number], RawMemory>(
        "SELECT id, text, tags, session_key, created_at FROM memory WHERE project = ? AND session_key = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
      ),
    };
  }

  /** memory_add, once per idempotency key. */
  async add(args: MemoryAddArgs): Promise<{ memoryId: string; createdAt: number; replayed: boolean }> {
    const { idempotencyKey, ...request } = args;
    const { result, replayed } = await this.idempotency.once("memory_add", idempotencyKey, request, async () => {
      const memoryId = `mem_${randomUUID()}`;
      const createdAt = Date.now();
      this.sql.insert.run(
        memoryId,
        request.text,
        request.project ?? this.deps.config.project,
        request.sessionKey ?? null,
        JSON.stringify(request.tags),
        createdAt,
      );
      return { memoryId, createdAt };
    });
    return { ...result, replayed };
  }

  /** memory_search: best matches first; `score` is higher for better matches. */
  search(args: MemorySearchArgs): { results: (Omit<MemoryEntry, "sessionKey"> & { score: number })[] } {
    const match = ftsQuery(args.query);
    if (match === null) return { results: [] };
    const rows = this.sql.search.all(match, args.project ?? this.deps.config.project, args.limit);
    return {
      results: rows.map((r) => ({
        memoryId: r.id,
        text: r.text,
        tags: JSON.parse(r.tags) as string[],
        createdAt: r.created_at,
        score: -r.rank,
      })),
    };
  }

  /** Newest entries of a project (and session), for continuity_context. */
  recent(project: string, sessionKey: string | undefined, limit: number): MemoryEntry[] {
    const rows =
      sessionKey === undefined
        ? this.sql.recent.all(project, limit)
        : this.sql.recentOfSession.all(project, sessionKey, limit);
    return rows.map(entry);
  }
}
