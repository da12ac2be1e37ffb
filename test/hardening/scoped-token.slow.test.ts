/**
 * The CLAW_TOKEN a script receives is its run's own scoped token,
 * never the server's. Real `tsclaw serve`, real bash calling back with curl: the token works
 * for the run's bus, task and session while the run lasts, nothing else; after the run ends
 * (and after a restart) it is refused with 401, and sockets opened with it are closed.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { answer, callBash, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { WAIT } from "../helpers/wait.js";

let fake: FakeResponses;
let server: ServeProcess | undefined;
beforeAll(async () => {
  fake = await startFakeResponses();
});
afterAll(async () => {
  await fake?.close();
});
afterEach(async () => {
  if (server?.child.exitCode === null) await server.stop();
  server = undefined;
});

/** Waits (up to 30 s) for a file the script writes. */
function fileAppears(path: string): Promise<void> {
  return vi.waitFor(() => expect(existsSync(path), `${path} exists`).toBe(true), { ...WAIT, timeout: 30_000 });
}

/** A script that keeps its token and environment in `dir`, tries calls, then waits for `dir/go`. */
function probeScript(dir: string, calls: [name: string, body: string][]): string {
  const lines = calls.map(([name, body]) => `call '${name}' "${body.replace(/"/g, '\\"')}"`);
  return [
    `d=${dir}`,
    `printf %s "$CLAW_TOKEN" > $d/token`,
    `tr '\\0' '\\n' < /proc/$$/environ > $d/environ`,
    `call() { c=$(curl -s -o /dev/null -w '%{http_code}' "$CLAW_URL/do" -H "Authorization: Bearer $CLAW_TOKEN" -H 'Content-Type: application/json' -d "$2"); echo "$1 $c"; }`,
    "{ :",
    ...lines,
    "} > $d/codes",
    "touch $d/ready",
    "while [ ! -e $d/go ]; do sleep 0.05; done",
  ].join("\n");
}

/** `name code` lines the script wrote, as an object. */
function codesOf(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(join(dir, "codes"), "utf8").trim().split("\n")) {
    const [name, code] = line.split(" ");
    out[name!] = Number(code);
  }
  return out;
}

async function doWith(url: string, token: string, op: string, args: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/do`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ op, args }),
  });
  return { status: res.status, body: await res.json() };
}

/** Opens a WebSocket with `token`; resolves with the socket, or the HTTP status that refused it. */
function openWs(url: string, token: string): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, { headers: { authorization: `Bearer ${token}` } });
    ws.once("open", () => resolve(ws));
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.once("error", reject);
  });
}

function wsRequest(ws: WebSocket, op: string, args: unknown): Promise<any> {
  const id = `${op}-${Math.random()}`;
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const f = JSON.parse(data.toString());
      if (f.id !== id) return;
      ws.off("message", onMessage);
      resolve(f);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ op, args, id }));
  });
}

describe("scoped CLAW_TOKEN", () => {
  it("an agent run's bash calls back within its scope; after the run the token is refused and its sockets close", async () => {
    const dir = tempDir();
    server = await startServe(join(dir, "claw.db"), ["--base-url", fake.url]);
    fake.script(
      callBash({
        script: probeScript(dir, [
          ["out-own", '{"op":"out","args":{"bus":"$CLAW_BUS","payload":{"from":"script"}}}'],
          ["get-own-task", '{"op":"get_task","args":{"taskId":"$CLAW_TASK_ID"}}'],
          ["own-state", '{"op":"get_state","args":{"sessionKey":"$CLAW_SESSION_KEY"}}'],
          ["out-other-bus", '{"op":"out","args":{"bus":"other","payload":1}}'],
          ["bash", '{"op":"bash","args":{"script":"id"}}'],
          ["list-buses", '{"op":"list_buses"}'],
          ["run-task", '{"op":"run_task","args":{"prompt":"more"}}'],
          ["other-task", '{"op":"get_task","args":{"taskId":"t_someone_else"}}'],
          ["other-session", '{"op":"get_state","args":{"sessionKey":"someone-else"}}'],
        ]),
      }),
      answer("done"),
    );
    const started = await server.op("run_task", { prompt: "probe", sessionKey: "prober", bus: "probe-bus" });
    expect(started.status).toBe(200);
    const taskId = started.body.result.taskId;
    await fileAppears(join(dir, "ready"));

    expect(codesOf(dir)).toEqual({
      "out-own": 200,
      "get-own-task": 200,
      "own-state": 200,
      "out-other-bus": 403,
      bash: 403,
      "list-buses": 403,
      "run-task": 403,
      "other-task": 403,
      "other-session": 403,
    });
    const token = readFileSync(join(dir, "token"), "utf8");
    expect(token).toMatch(/^clawrun_/);
    const environ = readFileSync(join(dir, "environ"), "utf8");
    expect(environ).not.toContain(server.token);
    expect(environ).toContain(`CLAW_TOKEN=${token}\n`);
    const events = await server.op("read", { bus: "probe-bus", limit: 1000 });
    expect(events.body.result.events.map((e: { payload: unknown }) => e.payload)).toContainEqual({ from: "script" });

    // While the run lasts the token opens streams on its own bus (and no other), not /mcp.
    const ws = await openWs(server.url, token);
    if (typeof ws === "number") throw new Error(`WebSocket refused with ${ws}`);
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    expect((await wsRequest(ws, "subscribe", { bus: "probe-bus", after: 0 })).ok).toBe(true);
    expect((await wsRequest(ws, "subscribe", { bus: "other" })).error.code).toBe("forbidden");
    const sse = await fetch(`${server.url}/bus/probe-bus/events?after=0&token=${token}`);
    expect(sse.status).toBe(200);
    const sseEnded = sse.text();
    expect((await fetch(`${server.url}/bus/other/events?token=${token}`)).status).toBe(403);
    const mcp = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
      body: "{}",
    });
    expect(mcp.status).toBe(403);

    writeFileSync(join(dir, "go"), "");
    const done = await server.op("check_task", { taskId, waitMs: 30_000 });
    expect(done.body.result.task.status).toBe("completed");

    // The run is over: the token is refused everywhere, and what it opened is closed.
    expect(await closed).toBe(4001);
    await sseEnded; // the stream ended by itself
    const after = await doWith(server.url, token, "read", { bus: "probe-bus" });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("unauthorized");
    expect(await openWs(server.url, token)).toBe(401);
    expect((await fetch(`${server.url}/bus/probe-bus/events?token=${token}`)).status).toBe(401);
    expect((await server.op("read", { bus: "probe-bus" })).status).toBe(200); // the server's token still works
  }, 90_000);

  it("a run on the shared default bus publishes there but cannot read other sessions' events on it", async () => {
    const dir = tempDir();
    server = await startServe(join(dir, "claw.db"), ["--base-url", fake.url]);
    await server.op("out", { payload: { secret: "another session's event" } }); // on thebus
    fake.script(
      callBash({
        script: probeScript(dir, [
          ["out-own", '{"op":"out","args":{"bus":"$CLAW_BUS","payload":{"from":"run"}}}'],
          ["read-shared", '{"op":"read","args":{"bus":"thebus"}}'],
          ["read-default", '{"op":"read","args":{}}'],
          ["own-messages", '{"op":"get_messages","args":{"sessionKey":"$CLAW_SESSION_KEY"}}'],
        ]),
      }),
      answer("done"),
    );
    const started = await server.op("run_task", { prompt: "probe", sessionKey: "on-thebus" });
    expect(started.status).toBe(200);
    await fileAppears(join(dir, "ready"));
    expect(codesOf(dir)).toEqual({ "out-own": 200, "read-shared": 403, "read-default": 403, "own-messages": 200 });
    const token = readFileSync(join(dir, "token"), "utf8");
    const sse = await fetch(`${server.url}/bus/thebus/events?after=0&token=${token}`);
    expect(sse.status).toBe(403);
    // A client with the server's token follows thebus as before: the run's event is there.
    const events = await server.op("read", { bus: "thebus", limit: 1000 });
    expect(events.body.result.events.map((e: { payload: unknown }) => e.payload)).toContainEqual({ from: "run" });
    writeFileSync(join(dir, "go"), "");
    const done = await server.op("check_task", { taskId: started.body.result.taskId, waitMs: 30_000 });
    expect(done.body.result.task.status).toBe("completed");
  }, 90_000);

  it("a bash call's token reaches only its event buses and dies with the call", async () => {
    const dir = tempDir();
    server = await startServe(join(dir, "claw.db"));
    const script = probeScript(dir, [
      ["out-event-bus", '{"op":"out","args":{"bus":"lines","payload":"from script"}}'],
      ["read-event-bus", '{"op":"read","args":{"bus":"lines"}}'],
      ["out-thebus", '{"op":"out","args":{"payload":1}}'],
      ["bash", '{"op":"bash","args":{"script":"id"}}'],
      ["task", '{"op":"task_create","args":{"title":"x"}}'],
      ["memory", '{"op":"memory_add","args":{"text":"x"}}'],
      ["identity", '{"op":"server_identity"}'],
    ]).replace(/while .*$/, ""); // no wait: the call returns at once
    const r = await server.op("bash", { script, stdoutLineEvent: { bus: "lines", template: "{payload}" } });
    expect(r.status).toBe(200);
    expect(r.body.result.exitCode).toBe(0);
    expect(codesOf(dir)).toEqual({
      "out-event-bus": 200,
      "read-event-bus": 200,
      "out-thebus": 403,
      bash: 403,
      task: 403,
      memory: 403,
      identity: 200,
    });
    const token = readFileSync(join(dir, "token"), "utf8");
    expect(token).toMatch(/^clawrun_/);
    expect(readFileSync(join(dir, "environ"), "utf8")).not.toContain(server.token);
    expect((await doWith(server.url, token, "read", { bus: "lines" })).status).toBe(401);
  }, 60_000);

  it("a token taken from a run cut by kill -9 is refused after the restart", async () => {
    const dir = tempDir();
    const db = join(dir, "claw.db");
    server = await startServe(db, ["--base-url", fake.url]);
    fake.script(callBash({ script: probeScript(dir, []) }), answer("never"));
    expect((await server.op("run_task", { prompt: "hold", sessionKey: "holder" })).status).toBe(200);
    await fileAppears(join(dir, "ready"));
    const token = readFileSync(join(dir, "token"), "utf8");
    expect((await doWith(server.url, token, "server_identity", {})).status).toBe(200);
    await server.kill9();
    server = await startServe(db, ["--base-url", fake.url]);
    const r = await doWith(server.url, token, "server_identity", {});
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("unauthorized");
  }, 90_000);
});
