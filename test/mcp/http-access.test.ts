/**
 * /mcp follows the same access rules as /do (token, Origin, Host); its sessions end with DELETE;
 * a server stream cut mid-call resumes with Last-Event-ID.
 */
import { request } from "node:http";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { answer, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { WAIT } from "../helpers/wait.js";
import { httpMcpClient } from "./clients.js";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

let server: TestServer;
let fake: FakeResponses;
beforeAll(async () => {
  fake = await startFakeResponses();
  server = await startServer(memClaw({ baseURL: fake.url }), { token: "mcp-access-token" });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

/** A POST with a Host header of our choosing (fetch does not let a caller set Host). */
function postWithHost(host: string): Promise<number> {
  const u = new URL(`${server.url}/mcp`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers: {
          host,
          authorization: "Bearer mcp-access-token",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(INIT));
  });
}

function post(headers: Record<string, string>, body: unknown = INIT) {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

describe("/mcp access", () => {
  it("needs the token: 401 with WWW-Authenticate: Bearer", async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    const wrong = await post({ authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
  });

  it("refuses a foreign Origin (403) and a non-loopback Host", async () => {
    const res = await post({ authorization: "Bearer mcp-access-token", origin: "http://evil.example.com" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect(await postWithHost("evil.example.com")).toBe(403);
    expect(await postWithHost(new URL(server.url).host)).toBe(200);
  });

  it("opens a session with the token, and DELETE ends it", async () => {
    const res = await post({ authorization: "Bearer mcp-access-token" });
    expect(res.status).toBe(200);
    const session = res.headers.get("mcp-session-id")!;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    await res.body?.cancel();
    const headers = {
      authorization: "Bearer mcp-access-token",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    const del = await fetch(`${server.url}/mcp`, { method: "DELETE", headers });
    expect(del.status).toBe(200);
    const after = await post(headers, { jsonrpc: "2.0", id: 2, method: "ping" });
    expect(after.status).toBe(404);
  });

  it("answers a request without a session that is not initialize with 400", async () => {
    const res = await post(
      { authorization: "Bearer mcp-access-token" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    );
    expect(res.status).toBe(400);
    const get = await fetch(`${server.url}/mcp`, {
      headers: { authorization: "Bearer mcp-access-token", accept: "text/event-stream" },
    });
    expect(get.status).toBe(400);
  });

  it("shows MCP tasks to every session holding the token", async () => {
    const a = await httpMcpClient(server.url, "mcp-access-token");
    const b = await httpMcpClient(server.url, "mcp-access-token");
    const created = (
      await server.post(
        { op: "task_create", args: { title: "not an MCP task" } },
        { authorization: "Bearer mcp-access-token" },
      )
    ).body;
    expect(created.ok).toBe(true);
    // work tasks are not MCP tasks; run tasks are, from any session
    expect((await a.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(created.result.taskId);
    // …but tasks/get answers any task the token may see, whichever way it was created
    expect(await a.experimental.tasks.getTask(created.result.taskId)).toMatchObject({
      taskId: created.result.taskId,
      status: "working",
    });
    fake.script(answer("ok"));
    const started = await a.request(
      { method: "tools/call", params: { name: "run_task", arguments: { prompt: "hello" }, task: { ttl: 1000 } } },
      CreateTaskResultSchema,
    );
    const id = started.task.taskId;
    expect((await b.experimental.tasks.getTask(id)).taskId).toBe(id);
    expect((await b.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(id);
    expect(started.task.ttl).toBeNull(); // kept until deleted, whatever ttl was asked
    await a.close();
    await b.close();
  });
});

/** Reads SSE events (id and data) from a fetch body until `stop` says so or the body ends. */
async function readEvents(res: Response, stop: (e: { id?: string; data: string }) => boolean) {
  const events: { id?: string; data: string }[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join("\n");
      const e = { id, data };
      events.push(e);
      if (stop(e)) {
        await reader.cancel();
        return events;
      }
      cut = buffer.indexOf("\n\n");
    }
  }
  return events;
}

describe("/mcp stream resumption", () => {
  it("replays a call's answer after its stream was cut, from Last-Event-ID", async () => {
    const auth = { authorization: "Bearer mcp-access-token" };
    const init = await post(auth);
    const session = init.headers.get("mcp-session-id")!;
    await init.body?.cancel();
    const headers = { ...auth, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    await post(headers, { jsonrpc: "2.0", method: "notifications/initialized" });
    const call = await post(headers, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "bash", arguments: { script: "sleep 0.3; echo resumed" } },
    });
    expect(call.headers.get("content-type")).toContain("text/event-stream");
    // The first event primes the stream (an id, no data); cut the stream right after it.
    const [priming] = await readEvents(call, () => true);
    expect(priming!.id).toBeTruthy();
    expect(priming!.data).toBe("");
    // Until the server has seen the cut, the stream still counts as connected (409): retry, as clients do.
    const resumed = await vi.waitFor(async () => {
      const res = await fetch(`${server.url}/mcp`, {
        headers: { ...headers, accept: "text/event-stream", "last-event-id": priming!.id! },
      });
      if (res.status === 409) {
        await res.body?.cancel();
        throw new Error("409: the cut stream still counts as connected");
      }
      return res;
    }, WAIT);
    expect(resumed.status).toBe(200);
    const events = await readEvents(resumed, (e) => e.data.includes('"id":7'));
    const answer = JSON.parse(events.at(-1)!.data);
    expect(answer.id).toBe(7);
    expect(answer.result.structuredContent).toMatchObject({ stdout: "resumed\n", exitCode: 0 });
  });
});
