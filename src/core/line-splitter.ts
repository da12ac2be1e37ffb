/**
 * The one line splitter (bash output lines, JSON lines of stdio and `tsclaw tail`): splits a byte
 * stream on "\n" only, never on U+2028/U+2029 as `readline` does (that would cut JSON strings
 * apart), and removes one trailing "\r". `end()` yields a final unterminated line.
 *
 * It works on bytes: a UTF-8 "\n" byte is never part of another character, so a character split
 * across chunks survives, and the lines inside one chunk cost one decode. A line is bounded: of
 * a line longer than `maxLineBytes`, at most that many bytes are ever held, the rest is dropped
 * as it arrives, and the line is passed cut (or not at all). A 90 MB line without a newline
 * therefore costs `maxLineBytes` of memory, never a growing string re-read on every chunk.
 */

/** Called once per line; `cut` is true when the line was longer than the bound and this is its start. */
export type OnLine = (line: string, cut: boolean) => void;

/** Options of a {@link LineSplitter}. */
export interface LineSplitterOptions {
  /** Most bytes of one line (its "\r" included) that are passed on, and held while it spans chunks. */
  maxLineBytes: number;
  /**
   * What becomes of a longer line: "cut" passes its first `maxLineBytes` bytes (cut at a
   * character start, `cut` true); "drop" passes nothing of it. Default: "cut"
   */
  overlong?: "cut" | "drop";
  /** Told once per longer line, as soon as it passes the bound, how many of its bytes were seen by then. */
  onOverlong?: (bytesSeen: number) => void;
}

/** Incremental LF-only line splitter with a bounded line. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** True while the line held is longer than the bound (its rest is dropped as it arrives). */
  private over = false;
  private readonly max: number;
  private readonly drop: boolean;

  constructor(
    private readonly onLine: OnLine,
    private readonly options: LineSplitterOptions,
  ) {
    this.max = options.maxLineBytes;
    this.drop = options.overlong === "drop";
  }

  /** Bytes of the unterminated line held now (never more than `maxLineBytes`). */
  get bufferedBytes(): number {
    return this.size;
  }

  /** Feeds a chunk; calls onLine for each complete line. */
  push(input: Buffer | Uint8Array | string): void {
    const chunk = toBuffer(input);
    const first = chunk.indexOf(10);
    if (first < 0) {
      this.keep(chunk, 0, chunk.length);
      return;
    }
    let start = 0;
    if (this.size > 0 || this.over) {
      this.keep(chunk, 0, first);
      this.emitPending();
      start = first + 1;
    }
    const last = chunk.lastIndexOf(10);
    if (start <= last) this.emitWhole(chunk, start, last);
    if (last + 1 < chunk.length) this.keep(chunk, last + 1, chunk.length);
  }

  /** Flushes the last line if it had no terminator. */
  end(): void {
    if (this.size > 0 || this.over) this.emitPending();
  }

  /** The lines of chunk[start, last], each ending in "\n" (chunk[last] is one). */
  private emitWhole(chunk: Buffer, start: number, last: number): void {
    if (last - start <= this.max) {
      // No line of the span can pass the bound: every line from one decode of the span.
      const text = chunk.toString("utf8", start, last);
      let from = 0;
      for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", from)) {
        this.onLine(text.slice(from, i > from && text.charCodeAt(i - 1) === 13 ? i - 1 : i), false);
        from = i + 1;
      }
      this.onLine(stripCr(text.slice(from)), false);
      return;
    }
    // Line by line, so that a long line is cut or dropped before it is decoded.
    for (let from = start; from <= last; ) {
      const nl = chunk.indexOf(10, from);
      const bytes = nl - from;
      if (bytes <= this.max) this.onLine(stripCr(chunk.toString("utf8", from, nl)), false);
      else {
        this.options.onOverlong?.(bytes);
        if (!this.drop) this.onLine(chunk.toString("utf8", from, charStart(chunk, from, from + this.max)), true);
      }
      from = nl + 1;
    }
  }

  /** Appends chunk[from, to) to the pending line, up to the bound (cut at a character start). */
  private keep(chunk: Buffer, from: number, to: number): void {
    if (this.over || from >= to) return;
    const room = this.max - this.size;
    let end = to;
    if (to - from > room) {
      this.over = true;
      this.options.onOverlong?.(this.size + to - from);
      if (this.drop) {
        this.parts = [];
        this.size = 0;
        return;
      }
      end = charStart(chunk, from, from + room);
    }
    if (end > from) {
      // A copy: a view would keep the whole (up to 64 KiB) chunk alive for a few bytes, and the
      // caller may reuse its buffer.
      this.parts.push(Buffer.from(chunk.subarray(from, end)));
      this.size += end - from;
    }
  }

  private emitPending(): void {
    const { parts, size, over: cut } = this;
    this.parts = [];
    this.size = 0;
    this.over = false;
    if (cut && this.drop) return;
    const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)).toString("utf8");
    this.onLine(cut ? text : stripCr(text), cut);
  }
}

/** `end`, moved back to the start of the character it falls in (never past `from`). */
function charStart(chunk: Buffer, from: number, end: number): number {
  let at = end;
  while (at > from && (chunk[at]! & 0xc0) === 0x80) at--;
  return at;
}

function stripCr(line: string): string {
  return line.length > 0 && line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
}

function toBuffer(chunk: Buffer | Uint8Array | string): Buffer {
  if (typeof chunk === "string") return Buffer.from(chunk, "utf8");
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
