/**
 * MCP 2026-07-28 on /mcp beside the 2025 era: the official SDK v2 client in both eras, and raw
 * JSON-RPC for the tasks extension (CreateTaskResult, tasks/get, tasks/update, tasks/cancel,
 * notifications/tasks), its errors, and bad input that must change nothing.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { answer, bashThenAnswer, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { listenTasks, raw, TASKS } from "./modern-raw.js";

const TOKEN = "mcp-modern-token";
let server: TestServer;
let fake: FakeResponses;
beforeAll(async () => {
  fake = await startFakeResponses();
  server = await startServer(memClaw({ baseURL: fake.url }), { token: TOKEN });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const call = (method: string, params: Record<string, unknown>, options?: Parameters<typeof raw>[4]) =>
  raw(server.url, TOKEN, method, params, options);
const doOp = async (op: string, args: Record<string, unknown>) =>
  (await server.post({ op, args }, { authorization: `Bearer ${TOKEN}` })).body;

async function sdkClient(mode: "legacy" | { pin: string }): Promise<Client> {
  const client = new Client(
    { name: "tsclaw-test", version: "1.0.0" },
    { capabilities: { extensions: { [TASKS]: {} } } as never, versionNegotiation: { mode } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  return client;
}

describe("the official SDK v2 client", () => {
  it("negotiates 2026-07-28 through server/discover and calls a registry tool", async () => {
    const client = await sdkClient({ pin: "2026-07-28" });
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const caps = client.getServerCapabilities() as { extensions?: Record<string, unknown> };
    expect(caps.extensions).toHaveProperty([TASKS]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["run_task", "prompt", "check_task"]));
    const r = await client.callTool({ name: "server_identity", arguments: {} });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { instance: string }).instance).toBeTypeOf("string");
    await client.close();
  });

  it("still speaks the 2025 era (initialize, a session) on the same endpoint", async () => {
    const client = await sdkClient("legacy");
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    const r = await client.callTool({ name: "server_identity", arguments: {} });
    expect(r.isError).toBeFalsy();
    await client.close();
  });
});

describe("the tasks extension over tsclaw tasks (raw 2026-07-28)", () => {
  it("answers run_task with a CreateTaskResult once stored, and inlines the result when completed", async () => {
    fake.script(answer("done here"));
    const created = await call("tools/call", { name: "run_task", arguments: { prompt: "hi", sessionKey: "m1" } });
    expect(created.status).toBe(200);
    const task = created.body.result;
    expect(task).toMatchObject({ resultType: "task", ttlMs: null, pollIntervalMs: expect.any(Number) });
    expect(task.taskId).toMatch(/^task_/);
    expect(new Date(task.createdAt).toISOString()).toBe(task.createdAt);
    expect(task).not.toHaveProperty("task");
    // resolvable at once, as the spec requires
    const first = await call("tasks/get", { taskId: task.taskId });
    expect(first.body.result).toMatchObject({ resultType: "complete", taskId: task.taskId });
    const done = await vi.waitFor(
      async () => {
        const r = (await call("tasks/get", { taskId: task.taskId })).body.result;
        if (r.status !== "completed") throw new Error(r.status);
        return r;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(done.result.structuredContent).toMatchObject({ taskId: task.taskId, status: "completed" });
    expect(done.result.isError).toBeUndefined();
    // the same task through tsclaw's own operation: one task, same id
    expect((await doOp("get_task", { taskId: task.taskId })).result.status).toBe("completed");
  });

  it("answers synchronously, never a task, to a request that does not declare the extension", async () => {
    const r = await call("tools/call", { name: "server_identity", arguments: {} }, { tasks: false });
    expect(r.body.result.resultType).toBe("complete");
    expect(r.body.result).not.toHaveProperty("taskId");
  });

  it("serves tasks/get for a task not created over MCP, and pushes its changes to subscriptions/listen", async () => {
    const made = (await doOp("task_create", { title: "made over /do" })).result;
    const got = await call("tasks/get", { taskId: made.taskId });
    expect(got.body.result).toMatchObject({ taskId: made.taskId, status: "working" });
    const listen = await listenTasks(server.url, TOKEN, [made.taskId, "task_unknown"]);
    expect(listen.status).toBe(200);
    const ack = await listen.next();
    expect(ack.method).toBe("notifications/subscriptions/acknowledged");
    expect(ack.params.notifications.taskIds).toEqual([made.taskId]);
    expect((await listen.next()).params).toMatchObject({ taskId: made.taskId, status: "working" }); // the state now
    await doOp("task_update", { taskId: made.taskId, expectedVersion: made.version, title: "renamed" });
    const pushed = await listen.next();
    expect(pushed.method).toBe("notifications/tasks");
    expect(pushed.params).toMatchObject({ taskId: made.taskId, status: "working" });
    expect(pushed.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe(99);
    listen.close();
  });

  it("asks a needs_human task's question, and delivers the answer to its session as a follow-up", async () => {
    fake.script(bashThenAnswer("sleep 3", "finished"));
    const created = (await call("tools/call", { name: "run_task", arguments: { prompt: "x", sessionKey: "m2" } })).body
      .result;
    // The run moves its task on by itself (phase changes): retry on a version conflict.
    const marked = await vi.waitFor(
      async () => {
        const t = (await doOp("get_task", { taskId: created.taskId })).result;
        if (t.status !== "in_progress") throw new Error(t.status);
        const r = await doOp("task_update", {
          taskId: created.taskId,
          expectedVersion: t.version,
          status: "needs_human",
        });
        if (!r.ok) throw new Error(JSON.stringify(r.error));
        return r;
      },
      { timeout: 10_000, interval: 50 },
    );
    // Move the task's version on, as the run's own progress does at any moment.
    await vi.waitFor(
      async () => {
        const t = (await doOp("get_task", { taskId: created.taskId })).result;
        const r = await doOp("task_update", { taskId: created.taskId, expectedVersion: t.version, title: "x!" });
        if (!r.ok) throw new Error(JSON.stringify(r.error));
      },
      { timeout: 10_000, interval: 50 },
    );
    const asked = (await call("tasks/get", { taskId: created.taskId })).body.result;
    expect(asked.status).toBe("input_required");
    // The key is the version the wait began at: the task's version has moved on since (the
    // rename above, the run's own progress), the question and its key have not.
    const key = `human-${marked.result.version}`;
    expect(Object.keys(asked.inputRequests)).toEqual([key]);
    expect(asked.inputRequests[key].method).toBe("elicitation/create");
    // an unknown key is ignored; the known one is answered once
    const ack = await call("tasks/update", {
      taskId: created.taskId,
      inputResponses: {
        nope: { action: "accept", content: { message: "x" } },
        [key]: { action: "accept", content: { message: "use blue" } },
      },
    });
    expect(ack.body.result).toEqual(expect.objectContaining({ resultType: "complete" }));
    // the follow-up reaches the model when the run would end
    await vi.waitFor(
      () => expect(fake.requests.some((r) => JSON.stringify(r.body.input).includes("use blue"))).toBe(true),
      {
        timeout: 15_000,
        interval: 100,
      },
    );
    // Answered: not asked again while the same wait goes on, however the version moves.
    const after = (await call("tasks/get", { taskId: created.taskId })).body.result;
    expect(after.inputRequests ?? {}).toEqual({});
    expect(after.status).toBe("working");
    // The same key again (a client retrying, say) is answered already: nothing more is sent.
    await call("tasks/update", {
      taskId: created.taskId,
      inputResponses: { [key]: { action: "accept", content: { message: "use red" } } },
    });
    await vi.waitFor(
      async () =>
        expect((await doOp("get_state", { sessionKey: "m2" })).result).toMatchObject({
          isRunning: false,
          pending: { followUp: 0, prompts: 0 },
        }),
      { timeout: 15_000, interval: 100 },
    );
    const sent = fake.requests.map((r) => JSON.stringify(r.body.input));
    expect(sent.filter((input) => input.includes("use red"))).toEqual([]);
  });

  it("cancels through tasks/cancel (empty ack), and the task reads cancelled", async () => {
    fake.script(bashThenAnswer("sleep 30", "never"));
    const created = (await call("tools/call", { name: "run_task", arguments: { prompt: "y", sessionKey: "m3" } })).body
      .result;
    const ack = await call("tasks/cancel", { taskId: created.taskId });
    expect(ack.status).toBe(200);
    expect(Object.keys(ack.body.result).filter((k) => k !== "_meta")).toEqual(["resultType"]);
    await vi.waitFor(
      async () => expect((await call("tasks/get", { taskId: created.taskId })).body.result.status).toBe("cancelled"),
      { timeout: 15_000, interval: 100 },
    );
  });
});

describe("errors exactly as the specification says, and nothing else changes", () => {
  it("unknown task → -32602 on get, update and cancel", async () => {
    for (const method of ["tasks/get", "tasks/cancel"]) {
      expect((await call(method, { taskId: "task_nope" })).body.error.code).toBe(-32602);
    }
    const u = await call("tasks/update", { taskId: "task_nope", inputResponses: {} });
    expect(u.body.error.code).toBe(-32602);
  });

  it("a request that does not declare the extension → HTTP 400 -32021 naming it", async () => {
    const made = (await doOp("task_create", { title: "gated" })).result;
    const r = await call("tasks/get", { taskId: made.taskId }, { tasks: false });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });

  it("missing or mismatching standard headers → HTTP 400 -32020", async () => {
    const made = (await doOp("task_create", { title: "headers" })).result;
    for (const headers of [
      { "mcp-name": undefined },
      { "mcp-name": "task_other" },
      { "mcp-method": undefined },
      { "mcp-protocol-version": undefined },
    ]) {
      const r = await call("tasks/get", { taskId: made.taskId }, { headers });
      expect(r.status, JSON.stringify(headers)).toBe(400);
      expect(r.body.error.code).toBe(-32020);
    }
  });

  it("a malformed _meta → 400 -32602; tasks/list and tasks/result → -32601", async () => {
    const r = await call("tools/list", {}, { meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32602);
    for (const method of ["tasks/list", "tasks/result"]) {
      expect((await call(method, method === "tasks/result" ? { taskId: "task_x" } : {})).body.error.code).toBe(-32601);
    }
  });

  it("huge or malformed inputResponses change nothing", async () => {
    const made = (await doOp("task_create", { title: "untouched" })).result;
    const many = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [`k${i}`, { action: "accept", content: { message: "x".repeat(50) } }]),
    );
    const ack = await call("tasks/update", { taskId: made.taskId, inputResponses: many });
    expect(ack.body.result.resultType).toBe("complete");
    // not a map of responses: the SDK drops it as it lifts inputResponses; nothing is answered
    const bad = await call("tasks/update", { taskId: made.taskId, inputResponses: [1, 2] });
    expect(bad.body.result?.resultType ?? bad.body.error?.code).toMatch(/complete|-32602/);
    const huge = await call("tasks/update", {
      taskId: made.taskId,
      inputResponses: { k: "x".repeat(12 * 1024 * 1024) },
    });
    expect(huge.status).toBe(413);
    expect((await doOp("get_task", { taskId: made.taskId })).result.version).toBe(made.version);
  });
});
