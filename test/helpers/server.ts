/** A real HTTP server (port 0) over a claw, with a tiny client for POST /do. */

import { listenHttp, type RunningHttp } from "../../adapters/http.js";
import { type AccessPolicy, createAccessPolicy } from "../../adapters/security.js";
import { attachWebSocket } from "../../adapters/ws-server.js";
import type { Claw } from "../../src/index.js";

/** A started server and helpers to call it. */
export interface TestServer extends RunningHttp {
  claw: Claw;
  policy: AccessPolicy;
  /** POSTs an envelope to /do; returns status and parsed body. */
  post(body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  /** Calls one op; returns the parsed envelope. */
  op(op: string, args?: unknown): Promise<any>;
  close(): Promise<void>;
}

/** Starts HTTP + WebSocket on 127.0.0.1:0. Closing it also closes the claw. */
export async function startServer(claw: Claw, options: { token?: string } = {}): Promise<TestServer> {
  const policy = createAccessPolicy({ token: options.token });
  const http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy });
  const ws = attachWebSocket(claw, http.server, { policy });
  (claw.config as { url?: string }).url = http.url;
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${http.url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
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
