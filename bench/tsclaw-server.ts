/**
 * A tsclaw server for the peer scenarios: a claw on a file database with HTTP (/do) and the
 * WebSocket endpoint on one loopback port, guarded by an explicit token that every bench
 * client sends (as any peer must), so the figures include the access check.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { listenHttp } from "../adapters/http.js";
import { createAccessPolicy } from "../adapters/security.js";
import { attachWebSocket } from "../adapters/ws-server.js";
import { type Claw, createClaw } from "../src/index.js";
import { tempDir } from "./measure.js";

/** A running bench server. */
export interface BenchServer {
  claw: Claw;
  /** http://127.0.0.1:<port> */
  url: string;
  /** ws://127.0.0.1:<port>/ws */
  wsUrl: string;
  token: string;
  close(): Promise<void>;
}

/** Starts a claw with HTTP and WebSocket on a free port. */
export async function startBenchServer(name = "claw"): Promise<BenchServer> {
  const tmp = tempDir();
  const claw = createClaw({ db: join(tmp.dir, `${name}.db`), project: "bench" });
  const token = randomBytes(24).toString("base64url");
  const policy = createAccessPolicy({ token });
  const http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy });
  const ws = attachWebSocket(claw, http.server, { policy });
  return {
    claw,
    url: http.url,
    wsUrl: `${http.url.replace("http", "ws")}/ws`,
    token,
    close: async () => {
      ws.close();
      await http.close();
      await claw.close();
      tmp.remove();
    },
  };
}
