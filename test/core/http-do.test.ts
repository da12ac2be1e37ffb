import { request } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memClaw, tempDir } from "../helpers/claw.js";
import { pidFromFile, waitProcessGone } from "../helpers/process.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
afterEach(async () => {
  await server?.close();
});

describe("POST /do", () => {
  it("runs every bus and bash operation", async () => {
    server = await startServer(memClaw());
    expect(await server.op("out", { bus: "h", payload: { a: 1 } })).toMatchObject({
      id: 1,
      ok: true,
      result: { bus: "h", seq: 1 },
    });
    expect(await server.op("read", { bus: "h" })).toMatchObject({
      ok: true,
      result: { events: [{ seq: 1, payload: { a: 1 } }], lastSeq: 1, next: 1 },
    });
    expect(await server.op("list_buses")).toMatchObject({ ok: true, result: { buses: [{ bus: "h", count: 1 }] } });
    expect(await server.op("trim_bus", { bus: "h", keepLast: 0 })).toMatchObject({ ok: true, result: { deleted: 1 } });
    expect(
      await server.op("bash", { script: "echo hi", stdoutLineEvent: { template: "{payload}", bus: "h" } }),
    ).toMatchObject({
      ok: true,
      result: { stdout: "hi\n", exitCode: 0, timeout: false },
    });
    expect(await server.op("read", { bus: "h", after: 1 })).toMatchObject({
      result: { events: [{ seq: 2, payload: "hi" }] },
    });
    expect(await server.op("subscribe", {})).toMatchObject({ ok: false, error: { code: "unsupported_on_transport" } });
    expect(await server.op("unsubscribe", { sub: "nope" })).toMatchObject({ ok: true, result: { ok: false } });
    const identity = await server.op("server_identity");
    expect(identity.result.ops).toContain("out");
    expect((await server.op("ops")).result.ops.map((o: { name: string }) => o.name)).toEqual(identity.result.ops);
    expect((await server.op("doc")).result.markdown).toContain("### `out`");
  });

  it("long-polls read over HTTP", async () => {
    server = await startServer(memClaw());
    const pending = server.op("read", { bus: "lp", waitMs: 10_000 });
    // A deliberate delay: the event comes while the request waits (waking it is what is tested).
    setTimeout(() => void server.claw.bus.out({ bus: "lp", payload: 42 }), 50);
    expect((await pending).result.events[0].payload).toBe(42);
  });

  it("answers bad input with the right code and status, and keeps serving", async () => {
    server = await startServer(memClaw());
    const cases: [unknown, number, string][] = [
      ["{not json", 400, "invalid_json"],
      ["[1,2]", 400, "invalid_request"],
      ['"op"', 400, "invalid_request"],
      ["null", 400, "invalid_request"],
      [{ args: {} }, 400, "invalid_request"],
      [{ op: 5 }, 400, "invalid_request"],
      [{ op: "out", args: [] }, 400, "invalid_request"],
      [{ op: "no_such_op" }, 404, "unknown_op"],
      [{ op: "read", args: { after: "x" } }, 400, "invalid_args"],
      [{ op: "out", args: { bus: "with space", payload: 1 } }, 400, "invalid_args"],
      [{ op: "bash", args: { script: 1 } }, 400, "invalid_args"],
    ];
    for (const [body, status, code] of cases) {
      const r = await server.post(body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body).toMatchObject({ ok: false, error: { code, retryable: false } });
      expect(JSON.stringify(r.body)).not.toMatch(/\n\s+at /);
    }
    const withId = await server.post({ op: "nope", id: "x-1" });
    expect(withId.body.id).toBe("x-1");
    const text = await fetch(`${server.url}/do`, {
      method: "POST",
      headers: { "content-type": "text/plain", ...server.auth },
      body: "{}",
    });
    expect(text.status).toBe(415);
    expect(((await text.json()) as any).error.code).toBe("unsupported_media_type");
    const big = await server.post(JSON.stringify({ op: "out", args: { payload: "x".repeat(11 * 1024 * 1024) } }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("payload_too_large");
    expect(await server.op("out", { payload: "still here" })).toMatchObject({ ok: true });
    const notFound = await fetch(`${server.url}/nowhere`, { headers: server.auth });
    expect(notFound.status).toBe(404);
    const health = (await (await fetch(`${server.url}/health`)).json()) as any;
    expect(health.ok).toBe(true);
  });

  it("GET /doc needs the token (a run's token too); GET /health answers {ok:true} and nothing else", async () => {
    server = await startServer(memClaw());
    for (const path of ["/doc", "/doc?format=json", "/doc?op=out", "/doc?section=errors"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error.code).toBe("unauthorized");
    }
    const run = server.claw.services.tokens.mint({ owner: "a test run", buses: ["b"] });
    const viaRun = await fetch(`${server.url}/doc?op=out`, { headers: { authorization: `Bearer ${run.token}` } });
    expect(viaRun.status).toBe(200);
    run.revoke();
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('{"ok":true}');
  });

  it("serves /doc as Markdown and as the JSON catalog", async () => {
    server = await startServer(memClaw());
    const md = await fetch(`${server.url}/doc`, { headers: server.auth });
    expect(md.headers.get("content-type")).toContain("text/markdown");
    expect(await md.text()).toContain(`curl -s ${server.url}/do`);
    const json = (await (await fetch(`${server.url}/doc?format=json`, { headers: server.auth })).json()) as any;
    expect(json.ops.find((o: { name: string }) => o.name === "bash").input.properties.script.type).toBe("string");
  });

  it("kills the bash process group when the client disconnects mid-run", async () => {
    server = await startServer(memClaw());
    const dir = tempDir();
    const pidFile = join(dir, "pid");
    const body = JSON.stringify({ op: "bash", args: { script: `sleep 60 & echo $! > ${pidFile}; wait` } });
    const req = request(`${server.url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json", ...server.auth },
    });
    req.on("error", () => {});
    req.end(body);
    const pid = await pidFromFile(pidFile);
    expect(pid).toBeGreaterThan(0);
    req.destroy();
    expect(await waitProcessGone(pid)).toBe(true);
    // The slot is freed once the call has finished killing and draining (within the grace).
    await vi.waitFor(() => expect(server.claw.services.bash.running).toBe(0), { timeout: 5000, interval: 20 });
  });
});

describe("GET /bus/<name>/events", () => {
  it("answers a malformed escape in the bus name with invalid_args, not a 500", async () => {
    server = await startServer(memClaw());
    const r = await fetch(`${server.url}/bus/%E0%A4%A/events`, { headers: server.auth });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.code).toBe("invalid_args");
  });
});

describe("allowed origins", () => {
  it("accepts a configured Origin and still refuses others", async () => {
    const { listenHttp } = await import("../../adapters/http.js");
    const { createAccessPolicy } = await import("../../adapters/security.js");
    const claw = memClaw();
    const policy = createAccessPolicy({ allowedOrigins: ["http://localhost:5173"] });
    const http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy });
    try {
      const call = (origin: string) =>
        fetch(`${http.url}/do`, {
          method: "POST",
          headers: { "content-type": "application/json", origin, authorization: `Bearer ${policy.token}` },
          body: JSON.stringify({ op: "list_buses" }),
        });
      expect((await call("http://localhost:5173")).status).toBe(200);
      expect((await call("http://evil.example")).status).toBe(403);
    } finally {
      await http.close();
      await claw.close();
    }
  });
});
