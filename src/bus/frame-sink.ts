/**
 * Delivery of a subscription's events to a byte stream (SSE response, WebSocket, stdio), one
 * frame per event, written one at a time (never a page joined into one string). Pages read
 * from storage (the backlog) stop at the first sign of congestion and resume from storage when
 * the consumer drains, so a backlog of any size costs at most one page of memory. Live events
 * are written as they commit; what a transport does when its consumer falls behind on those
 * (cut it, or pause it too) is the sink's choice.
 */
import type { StoredEvent } from "./event-store.js";
import type { DeliverFn } from "./subscription.js";

/** Where a subscription's frames go. */
export interface FrameSink<F = string> {
  /** Writes one frame; false when the consumer was cut or has gone (delivery stops). */
  write(frame: F): boolean;
  /** True while frames are queued faster than the consumer reads them. */
  congested(): boolean;
  /** Calls `fn` once, after the queued frames have drained (never synchronously). */
  onDrain(fn: () => void): void;
  /** Pause live delivery on congestion too, instead of leaving it to `write`. Default: false */
  pauseLive?: boolean;
}

/**
 * A DeliverFn writing each event's frame to `sink`; `resume` is the subscription's resume
 * (called when the sink drains after a pause).
 */
export function deliverToSink<F>(sink: FrameSink<F>, frameOf: (e: StoredEvent) => F, resume: () => void): DeliverFn {
  return (events, live) => {
    const pauseOnCongestion = !live || sink.pauseLive === true;
    for (let i = 0; i < events.length; i++) {
      if (pauseOnCongestion && sink.congested()) {
        sink.onDrain(resume);
        return i;
      }
      if (!sink.write(frameOf(events[i]!))) return false;
    }
    if (pauseOnCongestion && sink.congested()) {
      sink.onDrain(resume);
      return false;
    }
    return true;
  };
}
