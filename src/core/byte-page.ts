/**
 * The one rule every page of a list answer follows (bus `read`, get_messages, list_tasks,
 * continuity_context): at most a number of items and at most {@link PAGE_BYTES} of their text,
 * the first item always, whatever its size, so a client always makes progress and no answer
 * needs memory in proportion to what is stored.
 */
import { z } from "zod";

/** Most bytes of item text in one page by default: 4 MiB. */
export const PAGE_BYTES = 4 * 1024 * 1024;

/**
 * The byte budget of one page that several lists may share (continuity_context fills three):
 * each `take` admits as many leading items as still fit, and the page's first item whatever
 * its size.
 */
export class PageBudget {
  private used = 0;
  private items = 0;

  /** @param maxBytes Most bytes in the page. */
  constructor(readonly maxBytes: number) {}

  /** How many of the leading items (of these sizes, each plus `overheadBytes`) join the page, at most `maxItems`. */
  take(sizes: readonly number[], maxItems = sizes.length, overheadBytes = 0): number {
    const end = Math.min(maxItems, sizes.length);
    let i = 0;
    for (; i < end; i++) {
      const bytes = this.used + sizes[i]! + overheadBytes;
      if (bytes > this.maxBytes && this.items > 0) break;
      this.used = bytes;
      this.items++;
    }
    return i;
  }
}

/**
 * How many of the leading items go in a page: as many as fit in `maxBytes` (each counted at
 * its size plus `overheadBytes`), at most `maxItems`, and at least one when there is one.
 */
export function fitBytes(
  sizes: readonly number[],
  maxBytes: number,
  maxItems = sizes.length,
  overheadBytes = 0,
): number {
  return new PageBudget(maxBytes).take(sizes, maxItems, overheadBytes);
}

/** SQL for the UTF-8 bytes of nullable text columns together (SQLite and PostgreSQL alike). */
export function octetsOf(columns: readonly string[]): string {
  return columns.map((c) => `COALESCE(octet_length(${c}), 0)`).join(" + ");
}

/** Smallest page a client may ask for: 1 KiB. */
const MIN_PAGE_BYTES = 1024;

/** Optional byte budget of one page, at most the server's page size (4 MiB), which is also the default. */
export const pageBytesInput = z
  .number()
  .int()
  .min(MIN_PAGE_BYTES)
  .max(PAGE_BYTES)
  .default(PAGE_BYTES)
  .describe(
    `Most bytes of item text in one page, ${MIN_PAGE_BYTES}-${PAGE_BYTES}; the first item comes whatever its size. Default: ${PAGE_BYTES} (4 MiB, as read)`,
  );
