/**
 * The per-peer connection cap is for remote peers, counted once a request proved the token:
 * a local program's hundreds of concurrent connections are served (only the total cap applies),
 * behind a trusted reverse proxy the forwarded client is the peer (limits only: a forwarded
 * request is never "this machine" for the token rules), and a connection without the token is
 * closed after its answer, so idle keep-alives cannot hold slots. Real HTTP server, in process.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { listenHttp, type RunningHttp } from "../../adapters/http.js";
import { type AccessPolicy, createAccessPolicy } from "../../adapters/security.js";
import { memClaw } from "../helpers/claw.js";
import { bodyOf, openRaw, type RawConnection, statusOf } from "../helpers/raw-http.js";

let http: RunningHttp | undefined;
let close: (() => Promise<void>) | undefined;
const sockets: RawConnection[] = [];
afterEach(async () => {
  for (const c of sockets.splice(0)) c.socket.destroy();
  await close?.();
  http = close = undefined;
});

async function serve(perPeer: number, options: { trustProxy?: string[]; insecureLoopback?: boolean } = {}) {
  const claw = memClaw({ limits: { maxConnectionsPerPeer: perPeer, maxConnections: 1000 } });
  const policy: AccessPolicy = createAccessPolicy({ insecureLoopback: options.insecureLoopback });
  http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy, trustProxy: options.trustProxy, mcp: false });
  const running = http;
  close = async () => {
    const closed = running.close();
    await claw.close();
    await closed;
  };
  return { port: http.port, token: policy.token };
}

/** Sends one request on a fresh keep-alive connection and waits for the answer's head and body. */
async function ask(port: number, head: string): Promise<RawConnection> {
  const c = await openRaw(port);
  sockets.push(c);
  c.socket.write(`${head}Host: localhost\r\n\r\n`);
  await vi.waitFor(() => expect(bodyOf(c.received())).toMatch(/\}$|\n$/), { timeout: 20_000 });
  return c;
}

const doc = (token?: string, extra = "") =>
  `GET /doc?op=out HTTP/1.1\r\n${token ? `Authorization: Bearer ${token}\r\n` : ""}${extra}`;

describe("connection caps", () => {
  it("300 concurrent keep-alive connections of a local program are all served (loopback: the total cap only)", async () => {
    const { port, token } = await serve(5);
    const conns = await Promise.all(Array.from({ length: 300 }, () => ask(port, doc(token))));
    expect(conns.map((c) => statusOf(c.received()))).toEqual(conns.map(() => 200));
    expect(conns.every((c) => !c.socket.destroyed)).toBe(true); // still open, still counted nowhere but the total
  }, 60_000);

  it("behind a trusted proxy the forwarded client is the peer: its cap refuses it, not the proxy's other clients", async () => {
    const { port, token } = await serve(3, { trustProxy: ["127.0.0.1"] });
    const from = (client: string) => doc(token, `X-Forwarded-For: 198.51.100.1, ${client}\r\n`);
    const first = await Promise.all(Array.from({ length: 3 }, () => ask(port, from("203.0.113.7"))));
    expect(first.map((c) => statusOf(c.received()))).toEqual([200, 200, 200]);
    const fourth = await ask(port, from("203.0.113.7"));
    expect(statusOf(fourth.received())).toBe(429);
    expect(JSON.parse(bodyOf(fourth.received())).error).toMatchObject({
      code: "too_many_requests",
      details: { limit: 3, scope: "peer" },
    });
    await fourth.closed; // a refused connection is closed after its answer
    const other = await ask(port, from("203.0.113.8"));
    expect(statusOf(other.received())).toBe(200);
    // Forwarded: the header, never the proxy's socket, names the peer; without trust it is ignored.
    const viaForwarded = await ask(port, doc(token, 'Forwarded: for="[2001:db8::1]:4711"\r\n'));
    expect(statusOf(viaForwarded.received())).toBe(200);
  }, 60_000);

  it("a forwarded request is never loopback for the token rules (--insecure-loopback does not let it in)", async () => {
    const { port } = await serve(3, { trustProxy: ["127.0.0.1"], insecureLoopback: true });
    const local = await ask(port, doc());
    expect(statusOf(local.received())).toBe(200); // the explicit opt-out, for this machine's peers
    for (const header of [
      "X-Forwarded-For: 203.0.113.7\r\n",
      "Forwarded: for=203.0.113.7\r\n",
      "X-Real-IP: 203.0.113.7\r\n",
    ]) {
      const forwarded = await ask(port, doc(undefined, header));
      expect(statusOf(forwarded.received())).toBe(401);
      expect(bodyOf(forwarded.received())).not.toContain("tsclaw serve printed"); // no local hint either
    }
  }, 60_000);

  it("a connection without the token is closed after its answer; it never holds a peer slot", async () => {
    const { port, token } = await serve(1, { trustProxy: ["127.0.0.1"] });
    const from = "X-Forwarded-For: 203.0.113.9\r\n";
    const idle: RawConnection[] = [];
    for (const head of [doc(undefined, from), `GET /health HTTP/1.1\r\n${from}`, doc("wrong", from)]) {
      const c = await ask(port, head);
      expect(c.received()).toMatch(/\r\nconnection: close\r\n/i);
      idle.push(c);
    }
    await Promise.all(idle.map((c) => c.closed));
    const proven = await ask(port, doc(token, from));
    expect(statusOf(proven.received())).toBe(200);
    expect(proven.received()).toMatch(/\r\nconnection: keep-alive\r\n/i);
  }, 60_000);
});
