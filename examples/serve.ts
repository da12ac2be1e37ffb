/**
 * Serving a claw from your own program: POST /do, GET /doc, SSE and the WebSocket bridge on one
 * port, as `tsclaw serve` does. Run: PORT=8000 npx tsx examples/serve.ts (Ctrl-C stops it).
 *
 * Environment: PORT (default 8000; 0 picks a free one), HOST (default 127.0.0.1), CLAW_DB
 * (default ":memory:"), CLAW_BASE_URL, CLAW_TOKEN (the token every peer must send; default: a
 * generated one, printed on stderr).
 */
import { listenHttp } from "../adapters/http.js"; // in your project: from "tsclaw/http"
import { attachWebSocket, createAccessPolicy } from "../adapters/ws.js"; // from "tsclaw/ws"
import { createClaw } from "../src/index.js"; // from "tsclaw"

const policy = createAccessPolicy({ token: process.env.CLAW_TOKEN || undefined });
const claw = createClaw({
  db: process.env.CLAW_DB ?? ":memory:",
  baseURL: process.env.CLAW_BASE_URL || undefined,
  token: policy.token,
});
const http = await listenHttp(claw, {
  host: process.env.HOST ?? "127.0.0.1",
  port: Number(process.env.PORT ?? 8000),
  policy,
});
const ws = attachWebSocket(claw, http.server, { policy });
claw.serveAs({ url: http.url }); // bash started by agents finds its way back

console.log(`listening ${http.url}`);
console.error(`guide: ${http.url}/doc`);
if (!process.env.CLAW_TOKEN) console.error(`token (send it as Authorization: Bearer <token>): ${policy.token}`);

const stop = async () => {
  ws.close();
  const closed = http.close();
  await claw.close(); // answers in-flight calls, marks runs interrupted, closes the database
  await closed;
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
