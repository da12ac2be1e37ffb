/**
 * Splits a byte stream into lines on "\n" only, removing one trailing "\r"; `end()` yields a
 * final unterminated line. Decoding is UTF-8 safe across chunk boundaries.
 */
import { StringDecoder } from "node:string_decoder";

/** Incremental LF-only line splitter. */
export class LineSplitter {
  private readonly decoder = new StringDecoder("utf8");
  private partial = "";

  constructor(private readonly onLine: (line: string) => void) {}

  /** Feeds a chunk; calls onLine for each complete line. */
  push(chunk: Buffer | string): void {
    const text = this.partial + (typeof chunk === "string" ? chunk : this.decoder.write(chunk));
    let start = 0;
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", start)) {
      const end = i > start && text.charCodeAt(i - 1) === 13 ? i - 1 : i;
      this.onLine(text.slice(start, end));
      start = i + 1;
    }
    this.partial = start === 0 ? text : text.slice(start);
  }

  /** Flushes the last line if it had no terminator. */
  end(): void {
    const tail = this.partial + this.decoder.end();
    this.partial = "";
    if (tail.length > 0) this.onLine(tail.endsWith("\r") ? tail.slice(0, -1) : tail);
  }
}
