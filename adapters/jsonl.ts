/**
 * The one JSON-lines framer, over the core line splitter (LF only, never `readline`, which also
 * splits on U+2028/U+2029 and would cut JSON strings apart), with a maximum line length so one
 * endless line cannot exhaust memory. Used by stdio, `tsclaw tail` and any other JSONL reader.
 */
import type { Writable } from "node:stream";
import { DEFAULTS } from "../src/config/defaults.js";
import { LineSplitter } from "../src/core/line-splitter.js";
import { encodeResponse } from "../src/core/wire.js";

/** Default max line length: 10 MiB, the same as a request body. */
export const DEFAULT_MAX_LINE_BYTES = DEFAULTS.maxRequestBytes;

/** Callbacks of a {@link JsonLinesSplitter}. */
export interface JsonLinesHandlers {
  /** A complete line (without "\n" and without one trailing "\r"). */
  line(text: string): void;
  /** A line longer than the limit was dropped; `bytes` is how much of it was seen before dropping. */
  oversize(bytes: number): void;
}

/**
 * The core line splitter as a JSON-lines framer: a line longer than the limit is dropped whole
 * (a cut JSON text is no JSON) and reported once, as soon as it passes the limit.
 */
export class JsonLinesSplitter extends LineSplitter {
  /** @param maxLineBytes Longest accepted line in bytes. Default: 10 MiB */
  constructor(handlers: JsonLinesHandlers, maxLineBytes = DEFAULT_MAX_LINE_BYTES) {
    super((line) => handlers.line(line), {
      maxLineBytes,
      overlong: "drop",
      onOverlong: (bytes) => handlers.oversize(bytes),
    });
  }
}

/** Iterates the lines of an async byte source (a Node stream or a fetch body). */
export async function* readJsonLines(
  source: AsyncIterable<Buffer | Uint8Array | string>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): AsyncGenerator<{ line: string } | { oversize: number }> {
  const ready: ({ line: string } | { oversize: number })[] = [];
  const splitter = new JsonLinesSplitter(
    { line: (line) => ready.push({ line }), oversize: (oversize) => ready.push({ oversize }) },
    maxLineBytes,
  );
  for await (const chunk of source) {
    splitter.push(chunk);
    while (ready.length > 0) yield ready.shift()!;
  }
  splitter.end();
  while (ready.length > 0) yield ready.shift()!;
}

/** One value as a JSON line (U+2028/U+2029 escaped, ending in "\n"). */
export function jsonLine(value: unknown): string {
  return `${encodeResponse(value as object)}\n`;
}

/** Writes one already-encoded JSON text as a line; returns the stream's backpressure flag. */
export function writeLine(output: Writable, json: string): boolean {
  return output.write(`${json}\n`);
}
