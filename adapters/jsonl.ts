/**
 * The one JSON-lines framer: splits a byte stream on "\n" only (never `readline`, which also
 * splits on U+2028/U+2029 and would cut JSON strings apart), with a maximum line length so one
 * endless line cannot exhaust memory. Used by stdio, `tsclaw tail` and any other JSONL reader.
 */
import type { Writable } from "node:stream";
import { DEFAULTS } from "../src/config/defaults.js";
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
 * Incremental LF-only splitter over bytes. Bytes are collected per line and decoded once the
 * line is complete, so multi-byte characters split across chunks survive.
 */
export class JsonLinesSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** True while skipping the rest of an oversized line. */
  private discarding = false;

  /** @param maxLineBytes Longest accepted line in bytes. Default: 10 MiB */
  constructor(
    private readonly handlers: JsonLinesHandlers,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  /** Feeds a chunk; calls the handlers for every complete line in it. */
  push(chunk: Buffer | Uint8Array | string): void {
    let buf =
      typeof chunk === "string"
        ? Buffer.from(chunk, "utf8")
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10)) {
      this.take(buf.subarray(0, nl));
      this.finishLine();
      buf = buf.subarray(nl + 1);
    }
    if (buf.length > 0) this.take(buf);
  }

  /** Ends the stream: a final unterminated line is delivered too. */
  end(): void {
    if (this.size > 0 || this.discarding) this.finishLine();
  }

  private take(piece: Buffer): void {
    if (this.discarding || piece.length === 0) return;
    this.size += piece.length;
    if (this.size > this.maxLineBytes) {
      // Report once, as early as possible, and keep nothing of the line.
      this.handlers.oversize(this.size);
      this.parts = [];
      this.discarding = true;
      return;
    }
    // Copy: the caller may reuse its chunk buffer.
    this.parts.push(Buffer.from(piece));
  }

  private finishLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.size = 0;
      return;
    }
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    let text = bytes.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    this.handlers.line(text);
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
