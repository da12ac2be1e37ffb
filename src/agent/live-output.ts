/**
 * A running tool call's output as it arrives, for the session's bus: a dashboard or any
 * subscriber sees a long command's output while it runs, not only in the result at its end.
 * Chunks are coalesced (at most one event per stream every 100 ms) and capped per call, so a
 * chatty command costs a bounded number of bus events; the whole output is in the tool result.
 */
import { StringDecoder } from "node:string_decoder";

/** Coalescing window of live output events. */
export const LIVE_OUTPUT_FLUSH_MS = 100;
/** Characters of live output one tool call publishes at most. */
export const LIVE_OUTPUT_MAX_CHARS = 64 * 1024;

type Stream = "stdout" | "stderr";

/** What one flush publishes. */
export interface LiveOutputChunk {
  stream: Stream;
  text: string;
  /** Set on the last chunk when the cap cut the output. */
  truncated?: true;
}

/** Coalesces one call's output into chunks for `publish`. */
export class LiveOutput {
  private readonly pending: Record<Stream, string> = { stdout: "", stderr: "" };
  private readonly decoders: Record<Stream, StringDecoder> = {
    stdout: new StringDecoder("utf8"),
    stderr: new StringDecoder("utf8"),
  };
  private used = 0;
  private cut = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly publish: (chunk: LiveOutputChunk) => void) {}

  /** A chunk of output as the process wrote it. */
  push(stream: Stream, chunk: Buffer): void {
    if (this.cut) return;
    let text = this.decoders[stream].write(chunk);
    const room = LIVE_OUTPUT_MAX_CHARS - this.used;
    if (text.length >= room) {
      text = text.slice(0, room);
      this.cut = true;
    }
    this.used += text.length;
    this.pending[stream] += text;
    this.timer ??= setTimeout(() => this.flush(), LIVE_OUTPUT_FLUSH_MS);
  }

  /** Publishes what is pending; call at the end of the call, before its result. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const stream of ["stdout", "stderr"] as const) {
      const text = this.pending[stream];
      if (!text) continue;
      this.pending[stream] = "";
      this.publish(this.cut ? { stream, text, truncated: true } : { stream, text });
    }
  }
}
