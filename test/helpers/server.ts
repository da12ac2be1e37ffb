/**
 * A real HTTP server (port 0) over a claw, with a tiny client for POST /do. The server needs a
 * token from every peer, as `tsclaw serve` does; `token` and `auth` hand it to the test, and
 * `post`/`op` send it unless the test overrides the `authorization` header.
 */

import { listenHttp, type RunningHttp } from "../../adapters/http.js";
import type { McpHttpOptions } from "../../adapters/mcp/http.js";
import { type AccessPolicy, createAccessPolicy } from "../../adapters/security.js";
import { attachWebSocket } from "../../adapters/ws-server.js";
import type { Claw } from "../../src/index.js";

/** Headers of a test request; `undefined` removes a default (e.g. `{ authorization: undefined }`). */
export type TestHeaders = Record<string, string | undefined>;

/** A started server and helpers to call it. */
export interface TestServer extends RunningHttp {
  claw: Claw;
  policy: AccessPolicy;
  /** The server token. */
  token: string;
  /** `{ authorization: "Bearer <token>" }`, for fetch, WebSocket and SSE clients. */
  auth: Record<string, string>;
  /** POSTs an envelope to /do (with the token); returns status and parsed body. */
  post(body: unknown, headers?: TestHeaders): Promise<{ status: number; body: any }>;
  /** Calls one op; returns the parsed envelope. */
  op(op: string, args?: unknown): Promise<any>;
  close(): Promise<void>;
}

/** Options of {@link startServer}. */
export interface TestServerOptions {
  /** The token. Default: generated */
  token?: string;
  /** Let loopback peers in without the token. Default: false */
  insecureLoopback?: boolean;
  /** Origins allowed besides same-origin. Default: none */
  allowedOrigins?: string[];
  /** Options of /mcp. Default: the defaults */
  mcp?: McpHttpOptions;
}

/** Merges headers, dropping the ones set to undefined. */
export function mergeHeaders(...sets: TestHeaders[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const set of sets)
    for (const [k, v] of Object.entries(set))
      if (v === undefined) delete out[k];
      else out[k] = v;
  return out;
}

/** Starts HTTP + WebSocket on 127.0.0.1:0. Closing it also closes the claw. */
export async function startServer(claw: Claw, options: TestServerOptions = {}): Promise<TestServer> {
  const policy = createAccessPolicy({
    token: options.token,
    tokenHint: "the test server's token",
    insecureLoopback: options.insecureLoopback,
    allowedOrigins: options.allowedOrigins,
  });
  const http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy, mcp: options.mcp });
  const ws = attachWebSocket(claw, http.server, { policy });
  claw.serveAs({ url: http.url, token: policy.token });
  const auth = { authorization: `Bearer ${policy.token}` };
  const post = async (body: unknown, headers: TestHeaders = {}) => {
    const res = await fetch(`${http.url}/do`, {
      method: "POST",
      headers: mergeHeaders({ "content-type": "application/json" }, auth, headers),
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // leave as text
    }
    return { status: res.status, body: parsed as any };
  };
  return {
    ...http,
    claw,
    policy,
    token: policy.token,
    auth,
    post,
    op: async (op: string, args?: unknown) => (await post({ op, args, id: 1 })).body,
    close: async () => {
      ws.close();
      const closed = http.close(); // stop accepting; in-flight requests are answered by claw.close()
      await claw.close();
      await closed;
    },
  };
}
