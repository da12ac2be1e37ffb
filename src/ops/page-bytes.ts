/** The `maxBytes` input of operations that answer byte-bounded pages (get_messages, list_tasks, continuity_context). */
import { z } from "zod";
import { PAGE_BYTES } from "../core/byte-page.js";

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
