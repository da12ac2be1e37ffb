/**
 * The 2026-07-28 leg of /mcp: the SDK v2's stateless handler (createMcpHandler, strict: it
 * serves only the modern era; the 2025 era stays on the sessionful leg in http.ts), fed from
 * node:http. The SDK checks the envelope and the standard headers (MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name; a missing or mismatching one is HTTP 400 with -32020), answers
 * server/discover, and frames each answer as JSON or SSE. Task subscriptions (listen with
 * taskIds) are served by task-listen.ts. A client that drops its POST aborts the request's
 * signal, so the call ends as on a disconnect (a bash is killed, its slot freed).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { Claw } from "../../src/claw/claw.js";
import { headersFrom } from "../../src/core/node-headers.js";
import { FixtureTasks } from "./conformance-tools.js";
import { createModernServer } from "./modern-server.js";
import { isTaskListen, serveTaskListen } from "./task-listen.js";

/** What the modern leg takes from the /mcp options. */
export interface ModernOptions {
  /** Serve the conformance fixture tools. Default: false */
  testTools?: boolean;
  /** Interval of progress heartbeats during long calls, in ms. Default: 5000 */
  progressIntervalMs?: number;
  /** Largest POST body, in bytes. Default: the claw's limits.maxRequestBytes */
  maxBodyBytes?: number;
}

function webRequest(req: IncomingMessage, text: string, signal?: AbortSignal): Request {
  const headers = headersFrom(req.headers);
  return new Request(`http://${req.headers.host ?? "localhost"}/mcp`, { method: "POST", headers, body: text, signal });
}

/** The modern leg of one /mcp mount. */
export class ModernMcp {
  private readonly handler: McpHttpHandler;
  private readonly fixtures: FixtureTasks | undefined;
  private readonly listens = new Set<ServerResponse>();

  constructor(
    private readonly claw: Claw,
    options: ModernOptions,
  ) {
    const fixtures = options.testTools ? new FixtureTasks() : undefined;
    this.fixtures = fixtures;
    this.handler = createMcpHandler(
      () => createModernServer(claw, { fixtures, progressIntervalMs: options.progressIntervalMs }),
      {
        legacy: "reject",
        maxRequestBodySize: options.maxBodyBytes ?? claw.config.limits.maxRequestBytes,
        onerror: (err) => claw.config.log(`tsclaw mcp: ${err.message}`),
      },
    );
  }

  /** True when the SDK routes this POST to the 2026-07-28 era (it carries the per-request envelope). */
  async claims(req: IncomingMessage, text: string, body: unknown): Promise<boolean> {
    return !(await isLegacyRequest(webRequest(req, text), body));
  }

  /** Serves one modern POST. */
  async handle(req: IncomingMessage, res: ServerResponse, text: string, body: unknown): Promise<void> {
    if (isTaskListen(body)) {
      this.listens.add(res);
      try {
        return await serveTaskListen(this.claw, body, req.headers, res, this.fixtures);
      } finally {
        this.listens.delete(res);
      }
    }
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
    };
    res.once("close", onClose);
    try {
      const response = await this.handler.fetch(webRequest(req, text, abort.signal));
      await this.write(response, res);
    } finally {
      res.off("close", onClose);
    }
  }

  private async write(response: Response, res: ServerResponse): Promise<void> {
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    res.writeHead(response.status, headers);
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    const cancel = () => reader.cancel().catch(() => {});
    res.once("close", cancel);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // the client went away mid-stream: nothing to answer
    } finally {
      res.off("close", cancel);
      res.end();
    }
  }

  /** Ends the open task subscriptions (at shutdown); requests in flight are still answered. */
  closeStreams(): void {
    for (const res of this.listens) res.end();
  }

  /** Ends everything the modern leg holds. */
  async close(): Promise<void> {
    this.closeStreams();
    this.fixtures?.close();
    await this.handler.close();
  }
}
