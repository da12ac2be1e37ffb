/**
 * The HTTP adapter: POST /do (one envelope), GET /doc (Markdown or ?format=json), GET /health,
 * and the routes other adapters add (SSE, WebSocket upgrade). It converts, it holds no logic.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Claw } from "../src/claw/claw.js";
import { ClawError, httpStatus } from "../src/core/errors.js";
import { encodeResponse, errorResponse, parseJson, type Response } from "../src/core/wire.js";
import { type ConnectionGuard, guardConnections } from "./connection-guard.js";
import { applyCors } from "./cors.js";
import { HeldRequests } from "./held-requests.js";
import { readBody } from "./http-body.js";
import { closeMcpSessions, closeMcpStreams, McpHttpMount, type McpHttpOptions } from "./mcp/http.js";
import { parserError, rawErrorResponse } from "./raw-response.js";
import { type AccessGrant, type AccessPolicy, checkAccess, createAccessPolicy } from "./security.js";
import { closeSseStreams, handleSse } from "./sse.js";
import { defaultUiDir, serveUi } from "./ui-static.js";

/** Options of the HTTP server. */
export interface HttpOptions {
  /** Access policy (token, origins). Default: a generated token (read it from `RunningHttp.policy`) */
  policy?: AccessPolicy;
  /** Max request body in bytes. Default: the claw's limits.maxRequestBytes (10 MiB) */
  maxBodyBytes?: number;
  /** MCP over Streamable HTTP at /mcp; false leaves it out. Default: mounted with default options */
  mcp?: McpHttpOptions | false;
  /** Directory of the built web UI served at /ui; false leaves /ui out. Default: dist/ui of the package */
  ui?: string | false;
  /**
   * Addresses of reverse proxies in front of the server: their `X-Forwarded-For` (or
   * `Forwarded`) names the peer for the per-peer connection cap and logs, never for
   * authentication. Default: none
   */
  trustProxy?: readonly string[];
}

function send(res: ServerResponse, status: number, body: string, type = "application/json"): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    "content-type": `${type}; charset=utf-8`,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}

function sendEnvelope(res: ServerResponse, response: Response): void {
  const status = response.ok ? 200 : httpStatus(response.error.code);
  send(res, status, encodeResponse(response));
}

function sendError(res: ServerResponse, err: unknown): void {
  sendEnvelope(res, errorResponse(null, err));
}

async function handleDo(
  claw: Claw,
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  grant: AccessGrant,
): Promise<void> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    req.resume();
    throw new ClawError(
      "unsupported_media_type",
      `POST /do takes Content-Type: application/json (got "${type || "none"}"); with curl add -H 'Content-Type: application/json'`,
    );
  }
  const text = await readBody(req, limit);
  const value = parseJson(text);
  sendEnvelope(res, await claw.do(value, new HttpCallContext(res, grant.scoped)));
}

/**
 * The call context of one POST /do. The caller going away abandons its wait and kills its bash,
 * never a task. The controller, and the listener on the response's close, are made when the
 * call first asks for its signal: most calls (out, get_task) never do, and a listener per
 * request costs more than the rest of the context.
 */
class HttpCallContext {
  readonly transport = "http" as const;
  private abort: AbortController | undefined;

  constructor(
    private readonly res: ServerResponse,
    readonly grant: AccessGrant["scoped"],
  ) {}

  get signal(): AbortSignal {
    if (this.abort) return this.abort.signal;
    const abort = new AbortController();
    this.abort = abort;
    const res = this.res;
    if (res.closed) {
      if (!res.writableFinished) abort.abort(); // gone before the call looked
    } else
      res.on("close", () => {
        if (!res.writableFinished) abort.abort();
      });
    return abort.signal;
  }
}

function decodeBusName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ClawError("invalid_args", `bus name "${raw}" is not valid URL encoding`, {
      issues: [{ path: "bus", message: "invalid URL encoding" }],
    });
  }
}

/** The whole body of a healthy `GET /health`: no version, instance or path for peers without the token. */
const HEALTHY = JSON.stringify({ ok: true });

/**
 * Whether the server can serve, for `GET /health`: throws the error to answer when it cannot
 * (a server whose database files were deleted must say it cannot store), else resolves.
 */
async function healthCheck(claw: Claw): Promise<void> {
  // Up is not enough: a server whose database files were deleted, or whose database server is
  // stopped or hung, must say it cannot store (503), so a load balancer sends elsewhere.
  const down = await claw.gate.storageHealth();
  if (down) throw down;
  await claw.ready();
}

/** The request handler; usable with any node:http server. */
export function createHttpHandler(
  claw: Claw,
  options: HttpOptions & { policy: AccessPolicy; guard?: ConnectionGuard },
) {
  const policy = options.policy;
  const guard = options.guard;
  const limit = options.maxBodyBytes ?? claw.config.limits.maxRequestBytes;
  const mcp = options.mcp === false ? undefined : new McpHttpMount(claw, options.mcp);
  const uiDir = options.ui === false ? undefined : (options.ui ?? defaultUiDir());
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Nearly every request is POST /do: its exact URL is not parsed again per request.
    const url = req.url === "/do" ? DO_URL : new URL(req.url ?? "/", "http://localhost");
    const route = `${req.method} ${url.pathname}`;
    if (applyCors(req, res, policy)) return;
    if (route === "GET /health") {
      await healthCheck(claw);
      return send(res, 200, HEALTHY);
    }
    if (route === "GET /doc") {
      checkAccess(req, policy, { stream: false, scoped: claw.gate.tokens, tickets: claw.gate.tickets });
      guard?.authenticated(req, res);
      if (url.searchParams.get("format") === "json") return send(res, 200, JSON.stringify({ ops: claw.ops() }));
      const op = url.searchParams.get("op") ?? undefined;
      const section = url.searchParams.get("section") ?? undefined;
      return send(res, 200, claw.doc({ op, section }), "text/markdown");
    }
    // The page and its assets hold no data: no token, so a browser can load them and ask for it.
    if (options.ui !== false && (url.pathname === "/ui" || url.pathname.startsWith("/ui/")))
      return serveUi(url.pathname, req, res, uiDir);
    if (options.ui !== false && route === "GET /favicon.ico") return serveUi("/ui/favicon.svg", req, res, uiDir);
    if (url.pathname === "/do") {
      const grant = checkAccess(req, policy, { stream: false, scoped: claw.gate.tokens, tickets: claw.gate.tickets });
      guard?.authenticated(req, res);
      if (req.method !== "POST") throw new ClawError("invalid_request", "use POST /do with a JSON request envelope");
      return handleDo(claw, req, res, limit, grant);
    }
    if (url.pathname === "/mcp" && mcp) {
      try {
        // MCP clients send headers, never ?token=; a ticket tried here is used up all the same.
        checkAccess(req, policy, { stream: false, tickets: claw.gate.tickets });
        guard?.authenticated(req, res);
      } catch (err) {
        // MCP clients start their auth flow from this header.
        if (err instanceof ClawError && err.code === "unauthorized") res.setHeader("www-authenticate", "Bearer");
        throw err;
      }
      return mcp.handle(req, res);
    }
    const sse = /^\/bus\/([^/]+)\/events$/.exec(url.pathname);
    if (sse && req.method === "GET") {
      const grant = checkAccess(req, policy, {
        stream: true,
        scoped: claw.gate.tokens,
        tickets: claw.gate.tickets,
      });
      guard?.authenticated(req, res);
      return handleSse(claw, req, res, decodeBusName(sse[1]!), url, grant.scoped);
    }
    throw new ClawError(
      "not_found",
      `no route ${route}; POST /do, GET /doc, GET /health, GET /bus/<name>/events, /mcp, /ws, GET /ui`,
    );
  };
  return (req: IncomingMessage, res: ServerResponse): void => {
    answer(req, res).catch((err) => sendError(res, err));
  };
}

/** The URL of POST /do, parsed once (read only: nothing changes it). */
const DO_URL: Readonly<URL> = new URL("/do", "http://localhost");

/** A running HTTP server. */
export interface RunningHttp {
  server: Server;
  /** e.g. http://127.0.0.1:8000 */
  url: string;
  port: number;
  /** Who may call (the one given, or one with a generated token). */
  policy: AccessPolicy;
  close(): Promise<void>;
}

/**
 * A server bound to its port that does not answer yet: `serve` binds before it opens the
 * database. Requests arriving meanwhile are held (held-requests.ts) and answered once a claw
 * is attached.
 */
export interface BoundHttp {
  server: Server;
  /** e.g. http://127.0.0.1:8000 */
  url: string;
  port: number;
  /** Starts answering with `claw`. */
  attach(claw: Claw, options?: HttpOptions): RunningHttp;
  /** Requests held until `attach`. */
  waiting(): number;
  /** Releases the port without ever having answered (held requests get `starting`, 503). */
  close(): Promise<void>;
}

/** Binds `host`:`port` (port 0 picks a free one); requests are answered once a claw is attached. */
export function bindHttp(options: { host?: string; port?: number } = {}): Promise<BoundHttp> {
  // Timeouts are checked every second (Node's default of 30 s lets slow headers linger).
  const server = createServer({ connectionsCheckingInterval: 1000 });
  const held = new HeldRequests(server);
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    // Malformed bytes: one plain answer with an error envelope, never Node's bare reply or a stack.
    if (err.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
    socket.end(rawErrorResponse(parserError(err)), () => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8000, options.host, () => {
      server.off("error", reject);
      // Out of descriptors, accept() fails: a listener keeps that from ending the process.
      let lastLog = 0;
      server.on("error", (err) => {
        if (Date.now() - lastLog < 10_000) return;
        lastLog = Date.now();
        process.stderr.write(`tsclaw: accepting a connection failed: ${err.message}\n`);
      });
      const addr = server.address() as AddressInfo;
      const host =
        !options.host || options.host === "::" || options.host === "0.0.0.0"
          ? "127.0.0.1"
          : options.host.includes(":")
            ? `[${options.host}]`
            : options.host;
      const url = `http://${host}:${addr.port}`;
      resolve({
        server,
        port: addr.port,
        url,
        waiting: () => held.size,
        close: () => {
          held.refuseAll();
          return new Promise<void>((done) => server.close(() => done()));
        },
        attach: (claw, httpOptions = {}) => {
          const policy = httpOptions.policy ?? createAccessPolicy();
          const limits = claw.config.limits;
          server.keepAliveTimeout = limits.idleTimeoutMs;
          server.headersTimeout = limits.headerTimeoutMs; // for the later requests of a keep-alive connection
          server.requestTimeout = Math.max(300_000, limits.headerTimeoutMs);
          const guard = guardConnections(server, limits, { trustProxy: httpOptions.trustProxy });
          held.release(createHttpHandler(claw, { ...httpOptions, policy, guard }));
          return { server, port: addr.port, url, policy, close: () => closeHttp(server, claw, guard) };
        },
      });
    });
  });
}

function closeHttp(server: Server, claw: Claw, guard: ConnectionGuard): Promise<void> {
  return new Promise<void>((done) => {
    // Connections that finish their in-flight request become idle: close those as they
    // appear, and cut whatever is left after a grace.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), 10_000);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      closeMcpSessions(claw).then(done, done);
    });
    closeSseStreams(claw); // endless responses: end them so the server can close
    guard.closeFresh(); // connections that never sent a request hold nothing worth waiting for
    closeMcpStreams(claw); // MCP server streams too; calls in flight still get their answer
    server.closeIdleConnections();
  });
}

/** Starts an HTTP server on `host`:`port` (port 0 picks a free one). */
export async function listenHttp(
  claw: Claw,
  options: HttpOptions & { host?: string; port?: number } = {},
): Promise<RunningHttp> {
  return (await bindHttp(options)).attach(claw, options);
}
