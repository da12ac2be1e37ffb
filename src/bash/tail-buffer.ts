/** Keeps the last `cap` bytes of a stream, so huge outputs cost bounded memory. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** True once anything was dropped. */
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.cap && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.cap;
      this.truncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** The kept bytes as UTF-8 text (a character cut at the start is dropped). */
  toString(): string {
    let buf = Buffer.concat(this.chunks);
    if (this.truncated) {
      let i = 0; // skip continuation bytes of a character cut in half
      while (i < buf.length && i < 4 && (buf[i]! & 0xc0) === 0x80) i++;
      buf = buf.subarray(i);
    }
    return buf.toString("utf8");
  }
}
