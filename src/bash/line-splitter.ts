/**
 * Splits a byte stream into lines on "\n" only, removing one trailing "\r"; `end()` yields a
 * final unterminated line. Works on bytes (a UTF-8 "\n" byte is never part of another
 * character), so lines inside one chunk cost one decode, and a line that spans chunks is held
 * as at most `maxLineBytes` bytes: the rest of an overlong line is dropped as it arrives and the
 * line is reported as cut. A 90 MB line without a newline therefore costs `maxLineBytes` of
 * memory, never a growing string re-read on every chunk.
 */

/** Called once per line; `cut` is true when bytes past the buffer's bound were dropped. */
export type OnLine = (line: string, cut: boolean) => void;

/** Incremental LF-only line splitter with a bounded partial-line buffer. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private over = false;

  /**
   * @param onLine receives each line
   * @param maxLineBytes most bytes of a line spanning chunks that are kept. Lines that fit in one
   *   chunk are passed whole (they are in memory already); the caller cuts them to its budget.
   */
  constructor(
    private readonly onLine: OnLine,
    private readonly maxLineBytes: number,
  ) {}

  /** Bytes of the unterminated line held now (never more than `maxLineBytes`). */
  get bufferedBytes(): number {
    return this.size;
  }

  /** Feeds a chunk; calls onLine for each complete line. */
  push(chunk: Buffer): void {
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
    if (start <= last) {
      // Every line between start and the last newline, from one decode of that span.
      const text = chunk.toString("utf8", start, last);
      let from = 0;
      for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", from)) {
        this.onLine(text.slice(from, i > from && text.charCodeAt(i - 1) === 13 ? i - 1 : i), false);
        from = i + 1;
      }
      this.onLine(stripCr(text.slice(from)), false);
    }
    if (last + 1 < chunk.length) this.keep(chunk, last + 1, chunk.length);
  }

  /** Flushes the last line if it had no terminator. */
  end(): void {
    if (this.size > 0 || this.over) this.emitPending();
  }

  /** Appends chunk[from, to) to the pending line, up to the bound (cut at a character start). */
  private keep(chunk: Buffer, from: number, to: number): void {
    if (this.over || from >= to) return;
    const room = this.maxLineBytes - this.size;
    let end = to;
    if (to - from > room) {
      end = from + room;
      while (end > from && (chunk[end]! & 0xc0) === 0x80) end--; // do not split a character
      this.over = true;
    }
    if (end > from) {
      // A copy: a view would keep the whole (up to 64 KiB) chunk alive for a few bytes.
      this.parts.push(Buffer.from(chunk.subarray(from, end)));
      this.size += end - from;
    }
  }

  private emitPending(): void {
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    const text = bytes.toString("utf8");
    const cut = this.over;
    this.parts = [];
    this.size = 0;
    this.over = false;
    this.onLine(cut ? text : stripCr(text), cut);
  }
}

function stripCr(line: string): string {
  return line.length > 0 && line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
}
