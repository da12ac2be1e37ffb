/**
 * The events of one bash call: templates checked against the payload limit before the script
 * starts, one event per output line cut so that it fits the limit, a per-call cap on line
 * events, and in-order publishing with one wait at the end.
 */
import type { BusService } from "../bus/bus-service.js";
import { ClawError, toClawError } from "../errors.js";
import type { BashRequest, EventSpec } from "./bash-schema.js";
import { LineSplitter } from "./line-splitter.js";
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
 * the smallest value is `invalid_args`, so the script never starts.
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
    return { bus: spec.bus ?? defaultBus, template };
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

/** A line splitter that publishes one bounded event per line of `event`, within `budget`. */
export function lineEventSink(
  event: PreparedEvent,
  limit: number,
  budget: LineEventBudget,
  publisher: Publisher,
): LineSplitter {
  const { template, bus } = event;
  if (template.slots === 0) {
    const json = template.render("");
    return new LineSplitter(() => {
      if (budget.take()) publisher.publish(bus, json);
    }, 0);
  }
  // Bytes of escaped text each place of the value may take so that the event fits.
  const perSlot = Math.floor((limit - template.emptyBytes) / template.slots);
  return new LineSplitter(
    (line, cutBySplitter) => {
      if (!budget.take()) return;
      let text = line;
      // An escaped character takes at most 6 bytes, so short lines skip the exact count.
      const tooLong = text.length * 6 > perSlot && escapedBytes(text) > perSlot;
      if (tooLong) text = cutToEscapedBytes(text, perSlot);
      if (tooLong || cutBySplitter) budget.linesCut++;
      publisher.publish(bus, template.render(text));
    },
    // One byte over the budget keeps a trailing "\r" that is removed afterwards.
    Math.min(limit, perSlot + 1),
  );
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
