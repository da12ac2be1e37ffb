/**
 * tsclaw/stdio: the protocol as JSON lines over a pair of streams (stdin/stdout in `tsclaw
 * stdio`, any streams when embedded). One response line per request line, pipelined; event
 * lines for subscriptions; the output carries protocol lines only. A bad or oversized line gets
 * an error line and the stream goes on. At end of input the calls in flight finish, then it
 * resolves.
 * @module tsclaw/stdio
 */
import type { Readable, Writable } from "node:stream";
import type { Claw } from "../src/claw/claw.js";
import { ClawError } from "../src/core/errors.js";
import { JsonLinesSplitter } from "./jsonl.js";

export { JsonLinesSplitter, jsonLine, readJsonLines } from "./jsonl.js";

import { Peer } from "./peer.js";

/** Options of {@link runStdio}. */
export interface StdioOptions {
  /** Where request lines come from (e.g. process.stdin). */
  input: Readable;
  /** Where response and event lines go (e.g. process.stdout). */
  output: Writable;
  /** Longest accepted line in bytes. Default: the claw's limits.maxRequestBytes (10 MiB) */
  maxLineBytes?: number;
  /**
   * Bytes queued on `output` past which a subscription is cut: its events stop and a line
   * `{"event":"subscription_closed","sub","bus","lastSeq","reason":"slow_consumer"}` tells the
   * reader where to resume (`subscribe` with `after: lastSeq`). Default: 8 MiB
   */
  highWaterMark?: number;
  /** Calls in flight past which reading pauses until some finish. Default: 1024 */
  maxInFlight?: number;
  /** Subscriptions at once. Default: the claw's limits.maxSubscriptions (64) */
  maxSubscriptions?: number;
}

/**
 * Serves the protocol over `input`/`output` until `input` ends and every call in flight has
 * answered (subscriptions are then closed). Resolves once the last line is flushed; never
 * rejects. Does not end `output`.
 */
export function runStdio(claw: Claw, options: StdioOptions): Promise<void> {
  const { input, output } = options;
  const highWaterMark = options.highWaterMark ?? 8 * 1024 * 1024;
  const maxInFlight = options.maxInFlight ?? 1024;
  // Backlog pages pause at a quarter of the mark; only live events can reach the mark itself.
  const congestedAt = Math.max(1, Math.floor(highWaterMark / 4));
  let drainWaiters: (() => void)[] = [];
  const drained = () => {
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const w of waiters) w();
  };
  output.on("drain", drained);
  let outputBroken = false;

  const write = (text: string) => {
    if (!outputBroken) output.write(`${text}\n`);
  };
  const peer = new Peer(claw, {
    transport: "stdio",
    maxSubscriptions: options.maxSubscriptions ?? claw.config.limits.maxSubscriptions,
    sendFrame: write,
    sendEvent: (text, sub) => {
      if (outputBroken) return false;
      if (output.writableLength > highWaterMark) {
        const cursor = peer.cutSubscription(sub);
        write(
          JSON.stringify({
            event: "subscription_closed",
            sub,
            bus: cursor?.bus ?? null,
            lastSeq: cursor?.lastSeq ?? null,
            reason: "slow_consumer",
          }),
        );
        return false;
      }
      write(text); // the wire's encoder has escaped U+2028/U+2029, for readline-based readers

      return true;
    },
    congested: () => !outputBroken && output.writableLength > congestedAt,
    onDrain: (fn) => {
      if (outputBroken) return;
      drainWaiters.push(fn);
      if (output.writableLength <= congestedAt) setImmediate(drained);
    },
  });

  const maxLineBytes = options.maxLineBytes ?? claw.config.limits.maxRequestBytes;
  const splitter = new JsonLinesSplitter(
    {
      line: (line) => {
        if (line.trim() === "") return; // blank lines are spacing, not requests
        peer.receive(line);
        if (peer.pending >= maxInFlight && !input.isPaused()) {
          input.pause();
          void peer.idle().then(() => input.resume());
        }
      },
      oversize: (bytes) =>
        peer.reject(
          new ClawError(
            "payload_too_large",
            `line exceeds ${maxLineBytes} bytes (at least ${bytes} seen); it was skipped`,
            { limit: maxLineBytes },
          ),
        ),
    },
    maxLineBytes,
  );

  return new Promise<void>((resolve) => {
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      input.off("data", onData);
      await peer.idle();
      peer.close();
      output.off("drain", drained);
      if (outputBroken || output.writableLength === 0) return resolve();
      // Resolve once everything written so far is flushed.
      output.write("", () => resolve());
    };
    const onData = (chunk: Buffer | string) => splitter.push(chunk);
    input.on("data", onData);
    input.once("end", () => {
      splitter.end();
      void finish();
    });
    input.once("close", () => {
      splitter.end();
      void finish();
    });
    input.once("error", (err) => {
      claw.config.log(`tsclaw stdio: input failed: ${err.message}`);
      void finish();
    });
    output.once("error", (err) => {
      // The reader went away (EPIPE): stop work on its behalf.
      outputBroken = true;
      claw.config.log(`tsclaw stdio: output failed: ${err.message}`);
      peer.close();
      void finish();
    });
  });
}
