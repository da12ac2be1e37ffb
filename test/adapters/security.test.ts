/**
 * What keeps a local server safe from browser pages and stray clients: media type, Origin, Host
 * (DNS rebinding), tokens, body limit — and the server keeps serving after each rejection.
 */
import { request as httpRequest } from "node:http";
import { networkInterfaces } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { listenHttp, type RunningHttp } from "../../adapters/http.js";
import { createAccessPolicy, isLoopbackAddress, isLoopbackHost, tokenMatches } from "../../adapters/security.js";
import { type AttachedWebSocket, attachWebSocket } from "../../adapters/ws-server.js";
import type { Claw } from "../../src/index.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer | undefined;
let extra: { http: RunningHttp; ws: AttachedWebSocket; claw: Claw } | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (extra) {
    extra.ws.close();
    await extra.http.close();
    await extra.claw.close();
    extra = undefined;
  }
});

/** A raw request, so Host can be anything (sends the test server's token). */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/do`,
      { method: "POST", headers: { "content-type": "application/json", ...server?.auth, ...headers } },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Tries a WebSocket upgrade; resolves with the refusal status, or 101 when accepted. */
function upgradeStatus(url: string, options: WebSocket.ClientOptions = {}, query = ""): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace("http", "ws")}/ws${query}`, options);
    ws.once("open", () => {
      ws.close();
      resolve(101);
    });
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode!));
    ws.once("error", (err) => (err.message.includes("Unexpected server response") ? undefined : reject(err)));
  });
}

const envelope = JSON.stringify({ op: "list_buses", id: 1 });

describe("HTTP security", () => {
  it("a text/plain POST is 415 (a browser form cannot send JSON without a preflight)", async () => {
    server = await startServer(memClaw());
    const r = await server.post(envelope, { "content-type": "text/plain" });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ ok: false, error: { code: "unsupported_media_type" } });
    expect((await server.post(envelope)).status).toBe(200);
  });

  it("a foreign Origin is 403; the same origin is fine", async () => {
    server = await startServer(memClaw());
    const foreign = await server.post(envelope, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("forbidden");
    const same = await server.post(envelope, { origin: server.url });
    expect(same.status).toBe(200);
  });

  it("a foreign Host from loopback is 403 (DNS rebinding); localhost is fine", async () => {
    server = await startServer(memClaw());
    const rebound = await rawPost(server.url, { host: `attacker.example:${server.port}` }, envelope);
    expect(rebound.status).toBe(403);
    expect(rebound.body.error.code).toBe("forbidden");
    const local = await rawPost(server.url, { host: `LocalHost:${server.port}` }, envelope);
    expect(local.status).toBe(200);
  });

  it("a loopback request without the token or with a wrong one is 401", async () => {
    server = await startServer(memClaw(), { token: "t0ken" });
    expect((await server.post(envelope, { authorization: undefined })).status).toBe(401);
    const wrong = await server.post(envelope, { authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ code: "unauthorized", retryable: false });
    expect((await server.post(envelope, { authorization: "Bearer t0ken" })).status).toBe(200);
    expect((await server.post(envelope, { authorization: "bearer t0ken" })).status).toBe(200);
  });

  it("an 11 MiB body is 413 and the server serves the next request", async () => {
    server = await startServer(memClaw());
    const big = JSON.stringify({ op: "out", args: { payload: "x".repeat(11 * 1024 * 1024) } });
    const r = await server.post(big);
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("payload_too_large");
    expect((await server.post(envelope)).status).toBe(200);
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === "IPv4")?.address;

  it("a peer that is not on loopback needs the token, even with insecureLoopback", async () => {
    expect(external, "this test needs a non-loopback IPv4 interface").toBeDefined();
    const claw = memClaw();
    const policy = createAccessPolicy({ insecureLoopback: true });
    const http = await listenHttp(claw, { host: "0.0.0.0", port: 0, policy });
    extra = { http, claw, ws: attachWebSocket(claw, http.server, { policy }) };
    const url = `http://${external}:${http.port}`;
    const post = (headers: Record<string, string>) =>
      fetch(`${url}/do`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: envelope,
      }).then((r) => r.status);
    expect(await post({})).toBe(401);
    expect(await post({ authorization: `Bearer ${policy.token}x` })).toBe(401);
    expect(await post({ authorization: `Bearer ${policy.token}` })).toBe(200);
    expect(await upgradeStatus(url)).toBe(401);
    expect(await upgradeStatus(url, { headers: { authorization: `Bearer ${policy.token}` } })).toBe(101);
    // Only loopback is let in without the token, and only because insecureLoopback says so.
    expect(
      await fetch(`http://127.0.0.1:${http.port}/do`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: envelope,
      }).then((r) => r.status),
    ).toBe(200);
  });
});

describe("WebSocket upgrade security", () => {
  it("refuses an upgrade from a foreign Origin with 403 and accepts the same origin", async () => {
    server = await startServer(memClaw());
    const headers = server.auth;
    expect(await upgradeStatus(server.url, { origin: "https://evil.example", headers })).toBe(403);
    expect(await upgradeStatus(server.url, { origin: server.url, headers })).toBe(101);
    expect(await upgradeStatus(server.url, { headers })).toBe(101);
  });

  it("refuses an upgrade without the token (401), from loopback too; ?token= works for browsers", async () => {
    server = await startServer(memClaw(), { token: "abc" });
    expect(await upgradeStatus(server.url)).toBe(401);
    expect(await upgradeStatus(server.url, { headers: { authorization: "Bearer wrong" } })).toBe(401);
    expect(await upgradeStatus(server.url, { headers: { authorization: "Bearer abc" } })).toBe(101);
    expect(await upgradeStatus(server.url, {}, "?token=abc")).toBe(101);
    expect(await upgradeStatus(server.url, {}, "?token=")).toBe(401);
  });

  it("refuses an upgrade with a foreign Host from loopback", async () => {
    server = await startServer(memClaw());
    expect(await upgradeStatus(server.url, { headers: { ...server.auth, host: "rebind.example" } })).toBe(403);
  });
});

describe("security helpers", () => {
  it("recognises loopback addresses and host names", () => {
    expect(["127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1"].every(isLoopbackAddress)).toBe(true);
    expect(["192.0.2.1", "::ffff:10.0.0.1", undefined].some(isLoopbackAddress)).toBe(false);
    expect(["localhost", "LOCALHOST:8000", "127.0.0.1:1", "[::1]:8000", "app.localhost"].every(isLoopbackHost)).toBe(
      true,
    );
    expect(
      ["evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "[::2]:80", undefined].some(isLoopbackHost),
    ).toBe(false);
  });

  it("refuses blank tokens in a policy", () => {
    for (const token of ["", " ", "\t\n", " padded", "with space"])
      expect(() => createAccessPolicy({ token }), JSON.stringify(token)).toThrow(/token/);
    expect(createAccessPolicy().token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("compares tokens exactly", () => {
    expect(tokenMatches("abc", "abc")).toBe(true);
    expect(tokenMatches("abd", "abc")).toBe(false);
    expect(tokenMatches("abcd", "abc")).toBe(false);
    expect(tokenMatches("", "abc")).toBe(false);
    expect(tokenMatches(undefined, "abc")).toBe(false);
  });
});
