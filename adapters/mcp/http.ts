/**
 * Streamable HTTP at /mcp, both eras on one endpoint. A POST carrying the 2026-07-28 per-request
 * envelope goes to the SDK v2's stateless handler (modern.ts); everything else is the 2025 era:
 * POST carries messages, GET opens the server stream, DELETE ends a session, with one SDK
 * transport and one MCP server per session; each session's events are kept for replay
 * (Last-Event-ID), so a dropped or polled stream resumes, and long calls poll (see polling.ts).
 * Access (token, Origin, Host) is checked by the HTTP adapter before a request gets here.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Claw } from "../../src/claw/claw.js";
import { readBody } from "../http-body.js";
import { MemoryEventStore, ReplayBudget } from "./event-store.js";
import { ModernMcp } from "./modern.js";
import { SessionStreams } from "./polling.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

/** Options of the /mcp mount. */
export interface McpHttpOptions extends McpServerOptions {
  /** Sessions kept at once; past it the least recently used one is closed. Default: 256 */
  maxSessions?: number;
  /** Events each session keeps for stream resumption. Default: 1000 */
  replayEvents?: number;
  /** Bytes (of JSON) each session keeps for stream resumption. Default: 8 MiB */
  replayBytes?: number;
  /** Bytes every session of this mount keeps together for resumption. Default: 64 MiB */
  replayTotalBytes?: number;
  /** Reconnect delay a client is told in the SSE `retry` field, in ms. Default: 1000 */
  retryIntervalMs?: number;
  /**
   * Interval, in ms, at which a long call's SSE stream is closed for the client to reconnect
   * (sessions of revision 2025-11-25); 0 keeps streams open to the end. Default: 30000
   */
  pollAfterMs?: number;
  /**
   * How long, in ms, a call's answer waits for its client to resume a stream it lost, and how
   * long a call whose POST stream the client dropped keeps running without a resume before it is
   * cancelled (a bash killed, its --max-bash slot freed). Default: max(10000, 5 × retryIntervalMs)
   */
  resumeGraceMs?: number;
  /** Serve the probe tools of MCP test suites (test_reconnection). Default: false */
  testTools?: boolean;
  /** Largest POST body, in bytes. Default: the claw's limits.maxRequestBytes */
  maxBodyBytes?: number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  streams: SessionStreams;
  lastUsed: number;
}

/**
 * Largest 2025-era initialize request, in bytes: a session keeps its params (the client's
 * capabilities and info) for its whole life, so they are capped far below a request's limit.
 */
export const MAX_INITIALIZE_BYTES = 64 * 1024;

/** Default interval of polling closes, in ms. */
export const DEFAULT_POLL_AFTER_MS = 30_000;

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

const mounts = new WeakMap<Claw, Set<McpHttpMount>>();

/** Ends the standalone server streams of every /mcp mount of `claw` and refuses new sessions (at shutdown). */
export function closeMcpStreams(claw: Claw): void {
  for (const mount of mounts.get(claw) ?? []) mount.closeStreams();
}

/** Closes every MCP session of `claw`'s mounts. */
export async function closeMcpSessions(claw: Claw): Promise<void> {
  await Promise.all([...(mounts.get(claw) ?? [])].map((m) => m.close()));
}

/** The /mcp endpoint of one HTTP server. */
export class McpHttpMount {
  private readonly sessions = new Map<string, Session>();
  private readonly modern: ModernMcp;
  private readonly replay: ReplayBudget;
  private closed = false;

  constructor(
    private readonly claw: Claw,
    private readonly options: McpHttpOptions = {},
  ) {
    let set = mounts.get(claw);
    if (!set) {
      set = new Set();
      mounts.set(claw, set);
    }
    set.add(this);
    this.modern = new ModernMcp(claw, options);
    this.replay = new ReplayBudget(options.replayTotalBytes);
  }

  /** Number of open MCP sessions. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Handles one request to /mcp (already admitted by the access policy). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closed) return jsonRpcError(res, 503, -32000, "the server is shutting down");
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = this.sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, -32001, "Session not found; initialize a new one");
      session.lastUsed = performance.now();
      session.streams.claim(req);
      if (req.method === "GET" && req.headers["last-event-id"] !== undefined) session.streams.resumed();
      if (req.method !== "POST") return session.transport.handleRequest(req, res);
      return this.sessionPost(session, req, res);
    }
    if (req.method !== "POST") {
      return jsonRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    const limit = this.options.maxBodyBytes ?? this.claw.config.limits.maxRequestBytes;
    let text: string;
    try {
      text = await readBody(req, limit);
    } catch {
      return jsonRpcError(res, 413, -32600, `Request body over ${limit} bytes`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return jsonRpcError(res, 400, -32700, "Parse error: the body is not JSON");
    }
    if (await this.modern.claims(req, text, body)) return this.modern.handle(req, res, text, body);
    if ((body as { method?: unknown } | null)?.method === "initialize" && text.length > MAX_INITIALIZE_BYTES) {
      return jsonRpcError(res, 400, -32602, `initialize params over ${MAX_INITIALIZE_BYTES} bytes`);
    }
    const transport = this.open();
    await transport.handleRequest(req, res, body);
    // Anything but a successful initialize leaves no session behind.
    if (transport.sessionId === undefined || !this.sessions.has(transport.sessionId)) await transport.close();
  }

  /**
   * A POST of a session: the calls it carries are watched, so that the client dropping their
   * stream (a close before the answer) cancels them unless it resumes within the grace.
   */
  private async sessionPost(session: Session, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const limit = this.options.maxBodyBytes ?? this.claw.config.limits.maxRequestBytes;
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, limit));
    } catch (err) {
      if (err instanceof SyntaxError) return jsonRpcError(res, 400, -32700, "Parse error: the body is not JSON");
      return jsonRpcError(res, 413, -32600, `Request body over ${limit} bytes`);
    }
    const ids = (Array.isArray(body) ? body : [body]).flatMap((m) =>
      m !== null && typeof m === "object" && m.method === "tools/call" && m.id !== undefined ? [m.id] : [],
    );
    session.streams.opened(ids);
    if (ids.length > 0) {
      res.once("close", () => {
        if (!res.writableFinished) session.streams.dropped(ids, this.resumeGraceMs());
      });
    }
    return session.transport.handleRequest(req, res, body);
  }

  /** How long a dropped call's answer is kept for its client to resume; also its grace before it is cancelled. */
  private resumeGraceMs(): number {
    return this.options.resumeGraceMs ?? Math.max(10_000, 5 * (this.options.retryIntervalMs ?? 1000));
  }

  private open(): StreamableHTTPServerTransport {
    const retryMs = this.options.retryIntervalMs ?? 1000;
    // A closed call's answer waits this long for its client to reconnect (told to wait retryMs).
    const store = new MemoryEventStore(
      this.options.replayEvents,
      this.resumeGraceMs(),
      this.options.replayBytes,
      this.replay,
    );
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: store,
      retryInterval: retryMs,
      maxRequestBodySize: this.options.maxBodyBytes ?? this.claw.config.limits.maxRequestBytes,
      onsessioninitialized: (id) => {
        this.evictIfFull();
        this.sessions.set(id, { transport, streams, lastUsed: performance.now() });
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    const streams = new SessionStreams(transport, store, this.options.pollAfterMs ?? DEFAULT_POLL_AFTER_MS);
    transport.onclose = () => {
      streams.dispose();
      store.close();
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    const server = createMcpServer(this.claw, this.options, { streams, testTools: this.options.testTools });
    server.connect(transport).catch((err) => this.claw.config.log(`tsclaw mcp: ${(err as Error).message}`));
    return transport;
  }

  private evictIfFull(): void {
    const max = this.options.maxSessions ?? 256;
    while (this.sessions.size >= max) {
      let oldest: [string, Session] | undefined;
      for (const entry of this.sessions) if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
      if (!oldest) return;
      this.sessions.delete(oldest[0]);
      oldest[1].transport.close().catch(() => {});
    }
  }

  /**
   * Refuses new requests and ends the sessions' standalone GET streams, which never end by
   * themselves; POST streams end with their last answer, so calls in flight are still answered.
   */
  closeStreams(): void {
    this.closed = true;
    for (const s of this.sessions.values()) s.transport.closeStandaloneSSEStream();
    this.modern.closeStreams();
  }

  /** Ends every session (their open streams included). */
  async close(): Promise<void> {
    this.closed = true;
    mounts.get(this.claw)?.delete(this);
    await this.modern.close();
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.transport.close().catch(() => {})));
  }
}
