/**
 * Publishes a run's events to its session's bus in order: raw tool-call stream events and
 * lifecycle events, each carrying sessionId, runId and (for tasks) taskId. Publishing never
 * fails a run: a payload over the bus limit is shortened, a storage error is logged.
 */
import type { BusService, EncodedPayload } from "../bus/bus-service.js";
import type { AgentEvent, AgentEventInput } from "./agent-events.js";

/** A lifecycle or stream event payload. */
type RunEventPayload = Record<string, unknown> & { type: string };

/** Keep tool results in events below this many characters of JSON (stdout/stderr tails kept). */
const MAX_EVENT_RESULT_CHARS = 256 * 1024;
const TAIL_CHARS = 32 * 1024;

/** Shortens a bash result for an event when its JSON is very large. */
export function eventSizedResult(result: unknown): unknown {
  if (result === null || typeof result !== "object") return result;
  const r = result as Record<string, unknown>;
  if (JSON.stringify(r).length <= MAX_EVENT_RESULT_CHARS) return result;
  const tail = (v: unknown) => (typeof v === "string" && v.length > TAIL_CHARS ? v.slice(-TAIL_CHARS) : v);
  return { ...r, stdout: tail(r.stdout), stderr: tail(r.stderr), truncated: true, eventTruncated: true };
}

/** Ordered publisher for one run. */
export class RunEvents {
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly bus: BusService,
    private readonly busName: string,
    private readonly ids: { sessionId: string; runId: string; taskId?: string },
    private readonly log: (line: string) => void,
    private readonly onLifecycle?: (payload: AgentEvent) => void,
  ) {}

  /** A lifecycle event (also handed to the run's onEvent listener). */
  emit(e: AgentEventInput): void {
    const payload = { ...e, ...this.idFields() } as AgentEvent;
    try {
      this.onLifecycle?.(payload);
    } catch (err) {
      this.log(`tsclaw: a run's onEvent listener threw: ${(err as Error).message}`);
    }
    this.publish(payload);
  }

  /** A raw Responses stream event, with the run's ids added. */
  raw(event: object): void {
    this.publish({ ...(event as RunEventPayload), ...this.idFields() });
  }

  /** Resolves when everything published so far is committed (or failed and was logged). */
  flushed(): Promise<void> {
    return this.last.then(() => undefined);
  }

  private idFields(): { sessionId: string; runId: string; taskId?: string } {
    const f: { sessionId: string; runId: string; taskId?: string } = {
      sessionId: this.ids.sessionId,
      runId: this.ids.runId,
    };
    if (this.ids.taskId !== undefined) f.taskId = this.ids.taskId;
    return f;
  }

  private publish(payload: RunEventPayload | AgentEvent): void {
    let encoded: EncodedPayload;
    try {
      encoded = this.bus.encode(payload);
    } catch (err) {
      // Too large even after shortening results: keep the event, drop its body.
      try {
        encoded = this.bus.encode({
          type: payload.type,
          ...this.idFields(),
          omitted: `payload not published: ${(err as Error).message}`,
        });
      } catch {
        return;
      }
    }
    this.last = this.bus
      .outEncoded(this.busName, encoded)
      .catch((err) => this.log(`tsclaw: could not publish a ${payload.type} event: ${(err as Error).message}`));
  }
}
