/**
 * SSE polling on Streamable HTTP (2025-11-25): every POST stream starts with a priming event (an
 * event id, empty data, a `retry` delay), so the server may close it at will and the client
 * reconnects with Last-Event-ID. tsclaw closes the stream of a long call every `pollAfterMs`:
 * a call that runs for minutes then holds no connection (nor a slot of the per-peer connection
 * limit, nor a proxy's request timer) for longer than that; its progress and answer wait in
 * the session's event store.
 *
 * Only sessions that negotiated 2025-11-25 get either: clients of older revisions parse the
 * empty priming data as JSON and fail, and do not reconnect a POST stream closed before its
 * answer (the official SDKs gate both on the version for that reason). The negotiated version
 * is what decides, not a later request's MCP-Protocol-Version header.
 */
import type { IncomingMessage } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type JSONRPCMessage, type RequestId, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { MemoryEventStore } from "./event-store.js";

/** The first revision with priming events and server-side stream closes. */
export const POLLING_VERSION = "2025-11-25";

/** What a long call may do with its SSE stream; given to the MCP server by the HTTP mount. */
export interface CallStreams {
  /** Interval, in ms, at which a long call's stream is closed; 0 never closes it. */
  readonly pollAfterMs: number;
  /** True when the session's client reconnects to a stream the server closed. */
  resumable(): boolean;
  /** Closes the stream of call `requestId`; the client reconnects and the call goes on. */
  close(requestId: RequestId): void;
}

/** Closes the stream of a long call every `pollAfterMs` until the returned function is called. */
export function pollDuring(streams: CallStreams | undefined, requestId: RequestId): () => void {
  if (!streams || streams.pollAfterMs <= 0 || !streams.resumable()) return () => {};
  const timer = setInterval(() => streams.close(requestId), streams.pollAfterMs);
  timer.unref();
  return () => clearInterval(timer);
}

function newer(a: string, b: string): boolean {
  return a > b; // revisions are dates, YYYY-MM-DD
}

/**
 * The streams of one session: what it negotiated (read from its initialize answer) and which
 * calls' streams may be closed now.
 */
export class SessionStreams implements CallStreams {
  private version: string | undefined;
  /** Calls whose stream was closed and that have sent nothing since. */
  private readonly quiet = new Set<RequestId>();
  /** Unanswered calls whose POST stream the client dropped: cancelled unless the client resumes. */
  private readonly orphans = new Map<RequestId, NodeJS.Timeout>();
  /** Calls not answered yet. */
  private readonly open = new Set<RequestId>();

  constructor(
    private readonly transport: StreamableHTTPServerTransport,
    private readonly store: MemoryEventStore,
    readonly pollAfterMs: number,
  ) {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if ("result" in message && message.result.serverInfo !== undefined) {
        const v = message.result.protocolVersion;
        if (typeof v === "string") this.version = v;
      }
      const related = "id" in message ? message.id : options?.relatedRequestId;
      if (related !== undefined) this.quiet.delete(related);
      if ("id" in message && message.id !== undefined && ("result" in message || "error" in message))
        this.settle(message.id);
      return send(message, options);
    };
  }

  /** Notes calls that just arrived on a POST (they may later be orphaned by a dropped stream). */
  opened(ids: RequestId[]): void {
    for (const id of ids) this.open.add(id);
  }

  /**
   * The client dropped the POST stream of `ids`: each call still running is cancelled (as by
   * notifications/cancelled: a bash is killed, its slot freed) unless the client resumes a
   * stream of the session within `graceMs`. Its answer would wait in the event store only that
   * long, so a call nobody resumed by then can no longer reach anyone.
   */
  dropped(ids: RequestId[], graceMs: number): void {
    for (const id of ids) {
      if (!this.open.has(id) || this.orphans.has(id)) continue;
      const timer = setTimeout(() => {
        this.orphans.delete(id);
        const reason = "the client dropped the call's stream and did not resume it";
        this.transport.onmessage?.({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason },
        });
      }, graceMs);
      timer.unref();
      this.orphans.set(id, timer);
    }
  }

  /** The client resumed a stream (GET with Last-Event-ID): it is there for its calls. */
  resumed(): void {
    for (const timer of this.orphans.values()) clearTimeout(timer);
    this.orphans.clear();
  }

  private settle(id: RequestId): void {
    this.open.delete(id);
    const timer = this.orphans.get(id);
    if (timer) clearTimeout(timer);
    this.orphans.delete(id);
  }

  /** Stops every pending cancellation (the session is closing). */
  dispose(): void {
    this.resumed();
    this.open.clear();
  }

  resumable(): boolean {
    return this.version !== undefined && !newer(POLLING_VERSION, this.version);
  }

  /**
   * Closes the call's stream, unless the call has sent nothing since the last close: the
   * official client resumes from the last event id it saw on the connection the server
   * closes, and one that saw none reconnects without Last-Event-ID and loses the call.
   */
  close(requestId: RequestId): void {
    if (this.quiet.has(requestId)) return;
    this.quiet.add(requestId);
    this.store.detached(requestId);
    this.transport.closeSSEStream(requestId);
  }

  /**
   * Makes the request's MCP-Protocol-Version header the negotiated one when it names an older
   * supported revision or none (the SDK decides priming on the header of each request). An
   * unsupported one is left for the SDK to refuse.
   */
  claim(req: IncomingMessage): void {
    const v = this.version;
    if (v === undefined || !this.resumable()) return;
    const sent = req.headers["mcp-protocol-version"];
    if (typeof sent === "string" && (!SUPPORTED_PROTOCOL_VERSIONS.includes(sent) || !newer(v, sent))) return;
    const raw = req.rawHeaders;
    let found = false;
    for (let i = 0; i < raw.length; i += 2) {
      if (raw[i]!.toLowerCase() !== "mcp-protocol-version") continue;
      raw[i + 1] = v;
      found = true;
    }
    if (!found) raw.push("MCP-Protocol-Version", v);
    req.headers["mcp-protocol-version"] = v;
  }
}
