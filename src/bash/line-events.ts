/**
 * The events of one bash call: templates checked against the payload limit before the script
 * starts, one event per output line cut so that it fits the limit, a per-call cap on line
 * events, and in-order publishing with one wait at the end.
 */
import { isAscii } from "node:buffer";
import type { BusService } from "../bus/bus-service.js";
import { assertWritableBus } from "../bus/reserved-buses.js";
import { ClawError, toClawError } from "../core/errors.js";
import { LineSplitter } from "../core/line-splitter.js";
import type { BashRequest, EventSpec } from "./bash-schema.js";
import { type CompiledTemplate, compileTemplate, cutToEscapedBytes, escapedBytes } from "./template.js";

/** A compiled event spec: where it goes and how it renders. */
export interface PreparedEvent {
  bus: string;
  template: CompiledTemplate;
}

/** The four event specs of a call, compiled and checked. */
export interface PreparedEvents {
  stdoutLine?: PreparedEvent;
  stderrLine?: PreparedEvent;
  exit?: PreparedEvent;
  timeout?: PreparedEvent;
}

// The largest value each kind can carry: exit codes are 0-255 (128+N when signalled).
const WIDEST = { stdoutLineEvent: "", stderrLineEvent: "", exitEvent: 255, timeoutEvent: false } as const;

/**
 * Compiles the event specs of `req`; a template whose event cannot fit `limit` bytes even with
 * the smallest value is `invalid_args`, and a reserved bus is `bus_reserved`, so the script
 * never starts.
 */
export function prepareEvents(req: BashRequest, limit: number, defaultBus: string): PreparedEvents {
  const prepare = (field: keyof typeof WIDEST, spec: EventSpec | undefined): PreparedEvent | undefined => {
    if (!spec) return undefined;
    const template = compileTemplate(spec.template);
    const widest = WIDEST[field];
    const bytes = widest === "" ? template.emptyBytes : Buffer.byteLength(template.render(widest));
    if (bytes > limit) {
      const message = `its event takes ${bytes} bytes before any output; the payload limit is ${limit}`;
      throw new ClawError("invalid_args", `invalid arguments for bash: ${field}.template: ${message}`, {
        issues: [{ path: `${field}.template`, message }],
        limit,
      });
    }
    const bus = spec.bus ?? defaultBus;
    assertWritableBus(bus, `the bash call's ${field}.bus`);
    return { bus, template };
  };
  return {
    stdoutLine: prepare("stdoutLineEvent", req.stdoutLineEvent),
    stderrLine: prepare("stderrLineEvent", req.stderrLineEvent),
    exit: prepare("exitEvent", req.exitEvent),
    timeout: prepare("timeoutEvent", req.timeoutEvent),
  };
}

/** Counts shared by the stdout and stderr line events of one call. */
export class LineEventBudget {
  /** Lines whose event was cut to fit the payload limit. */
  linesCut = 0;
  /** Lines not published because the call reached its event cap. */
  eventsDropped = 0;

  constructor(private remaining: number) {}

  /** Takes one event from the cap; false once it is used up (the line is counted as dropped). */
  take(): boolean {
    if (this.remaining > 0) {
      this.remaining--;
      return true;
    }
    this.eventsDropped++;
    return false;
  }
}

/**
 * Publishes one bounded event per line of `event`, within `budget`. The events of one chunk go
 * to the bus in one call, and when the chunk and the template are ASCII (the common case: most
 * output is) the bus need not encode each event to count its bytes.
 */
export class LineEventSink {
  private readonly splitter: LineSplitter;
  private readonly bus: string;
  private readonly templateAscii: boolean;
  private pending: string[] = [];
  // Whether every byte since the last line boundary (the unterminated line held) is ASCII.
  private heldAscii = true;

  constructor(
    event: PreparedEvent,
    limit: number,
    budget: LineEventBudget,
    private readonly publisher: Publisher,
  ) {
    const { template, bus } = event;
    this.bus = bus;
    const empty = template.render("");
    // Each character past U+007F takes at least two UTF-8 bytes: equal counts mean ASCII.
    this.templateAscii = Buffer.byteLength(empty) === empty.length;
    if (template.slots === 0) {
      this.splitter = new LineSplitter(
        () => {
          if (budget.take()) this.pending.push(empty);
        },
        { maxLineBytes: 0 },
      );
      return;
    }
    // Bytes of escaped text each place of the value may take so that the event fits.
    const perSlot = Math.floor((limit - template.emptyBytes) / template.slots);
    this.splitter = new LineSplitter(
      (line, cutBySplitter) => {
        if (!budget.take()) return;
        let text = line;
        // An escaped character takes at most 6 bytes, so short lines skip the exact count.
        const tooLong = text.length * 6 > perSlot && escapedBytes(text) > perSlot;
        if (tooLong) text = cutToEscapedBytes(text, perSlot);
        if (tooLong || cutBySplitter) budget.linesCut++;
        this.pending.push(template.render(text));
      },
      // One byte over the budget keeps a trailing "\r" that is removed afterwards.
      { maxLineBytes: Math.min(limit, perSlot + 1) },
    );
  }

  /** Feeds one chunk of output; its complete lines are published. */
  push(chunk: Buffer): void {
    const chunkAscii = isAscii(chunk);
    // A line ending in this chunk is made of the held bytes and bytes of this chunk.
    const linesAscii = this.heldAscii && chunkAscii;
    this.splitter.push(chunk);
    this.heldAscii = chunk.includes(10) ? chunkAscii : linesAscii;
    this.flush(linesAscii);
  }

  /** Publishes the last line if it had no terminator. */
  end(): void {
    this.splitter.end();
    this.flush(this.heldAscii);
  }

  private flush(linesAscii: boolean): void {
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    // JSON text of ASCII text is ASCII (escapes are ASCII too).
    this.publisher.publishMany(this.bus, events, linesAscii && this.templateAscii);
  }
}

/** Publishes events in order and reports the first failure once all are settled. */
export class Publisher {
  private failure: unknown;
  // One callback for every event: a promise per line cost more than the line's insert.
  private readonly onError = (err: unknown) => {
    this.failure ??= err;
  };

  constructor(private readonly bus: BusService) {}

  /** Queues one event (already serialised and within the limit). */
  publish(bus: string, payloadJson: string): void {
    this.bus.enqueueJson(bus, payloadJson, this.onError);
  }

  /** Queues events in order; `ascii`: every text is ASCII (see BusService.enqueueJsonMany). */
  publishMany(bus: string, payloadJsons: readonly string[], ascii: boolean): void {
    this.bus.enqueueJsonMany(bus, payloadJsons, ascii, this.onError);
  }

  /** Resolves when every published event is committed; rejects if any failed. */
  async settled(): Promise<void> {
    await this.bus.committed();
    if (this.failure !== undefined) {
      const cause = toClawError(this.failure);
      throw new ClawError(
        cause.code,
        `bash finished but its events could not all be committed: ${cause.message}`,
        cause.details,
      );
    }
  }
}
