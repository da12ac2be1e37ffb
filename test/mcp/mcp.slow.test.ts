/**
 * The official SDK's Client against `tsclaw serve` (Streamable HTTP at /mcp) and `tsclaw mcp`
 * (stdio): the tool list, calls, errors, progress, cancellation, MCP tasks (also across a
 * restart) and task resource subscriptions.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { toolsOf } from "../../adapters/mcp/tool-list.js";
import { catalog } from "../../src/ops/catalog.js";
import { OPS } from "../../src/ops/index.js";
import { answer, type FakeResponses, stall, startFakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { processAlive, waitProcessGone } from "../helpers/process.js";
import { WAIT } from "../helpers/wait.js";
import { envelopeOf } from "./clients.js";
import { httpTarget, type McpTarget, stdioTarget } from "./targets.js";

let fake: FakeResponses;
beforeAll(async () => {
  fake = await startFakeResponses();
});
afterAll(async () => {
  await fake?.close();
});

/** Waits until `fn` gives a value (vi.waitFor), and returns it. */
function eventualValue<T>(what: string, fn: () => T | undefined): Promise<T> {
  return vi.waitFor(() => {
    const v = fn();
    expect(v, what).toBeDefined();
    return v as T;
  }, WAIT);
}

describe.each(["http", "stdio"] as const)("MCP over %s", (kind) => {
  let t: McpTarget;
  beforeAll(async () => {
    t = kind === "http" ? await httpTarget(fake.url) : await stdioTarget(fake.url);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    envelopeOf((await t.client.callTool({ name, arguments: args })) as never);

  it("lists exactly the non-streaming operations, with their schemas and annotations", async () => {
    const { tools } = await t.client.listTools();
    const entries = catalog(OPS).filter((e) => !e.streamingOnly);
    expect(tools.map((x) => x.name)).toEqual(entries.map((e) => e.name));
    expect(tools).toEqual(toolsOf(OPS)); // the generated list, unchanged on the wire
    for (const e of entries) {
      const tool = tools.find((x) => x.name === e.name)!;
      expect(tool.inputSchema).toEqual(e.input);
      expect(tool.outputSchema).toEqual(e.output);
      expect(tool.description).toContain(e.summary);
      expect(tool.annotations).toEqual({
        readOnlyHint: e.flags.readOnly,
        destructiveHint: e.flags.destructive,
        idempotentHint: e.flags.readOnly || e.flags.idempotent,
        openWorldHint: e.flags.openWorld,
      });
      expect(tool.execution).toEqual({ taskSupport: e.name === "run_task" ? "optional" : "forbidden" });
    }
    const byName = Object.fromEntries(tools.map((x) => [x.name, x.annotations]));
    expect(byName.bash).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(byName.read).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.run_task?.openWorldHint).toBe(true);
    expect(byName.task_update?.idempotentHint).toBe(true);
    expect(byName.out?.idempotentHint).toBe(false);
  });

  it("calls out, read, bash, task_create and task_update", async () => {
    const ack = await call("out", { bus: "m", payload: { hello: 1 } });
    expect(ack).toEqual({ ok: true, result: { bus: "m", seq: 1, ts: expect.any(Number) } });
    const read = await call("read", { bus: "m" });
    expect(read.result).toEqual({
      bus: "m",
      events: [{ bus: "m", seq: 1, ts: ack.result.ts, payload: { hello: 1 } }],
      lastSeq: 1,
      next: 1,
    });
    const bash = await call("bash", { script: "echo hi; echo err >&2; exit 3" });
    expect(bash.result).toMatchObject({ stdout: "hi\n", stderr: "err\n", exitCode: 3, timeout: false });
    const created = await call("task_create", { title: "Write the notes" });
    expect(created.result).toMatchObject({ title: "Write the notes", status: "todo", version: 1, kind: "work" });
    const updated = await call("task_update", {
      taskId: created.result.taskId,
      expectedVersion: 1,
      status: "in_progress",
    });
    expect(updated.result).toMatchObject({ status: "in_progress", version: 2 });
  });

  it("answers an invalid argument with an isError result carrying the error envelope", async () => {
    const r = await t.client.callTool({ name: "read", arguments: { limit: 0 } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    const e = envelopeOf(r as never);
    expect(e.error).toMatchObject({ code: "invalid_args", retryable: false });
    expect(e.error.details.issues[0].path).toBe("limit");
    const missing = await call("get_task", { taskId: "task_nope" });
    expect(missing.error).toMatchObject({ code: "not_found", retryable: false });
  });

  it("sends progress during a long bash from the lines it publishes", async () => {
    const reports: { progress: number; message?: string }[] = [];
    const r = await t.client.callTool(
      {
        name: "bash",
        arguments: {
          script: "for i in 1 2 3; do echo line$i; sleep 0.2; done",
          stdoutLineEvent: { template: { line: "{payload}" }, bus: "progress" },
        },
      },
      CallToolResultSchema,
      { onprogress: (p) => reports.push(p) },
    );
    expect(envelopeOf(r as never).result.stdout).toBe("line1\nline2\nline3\n");
    const lines = reports.map((p) => p.message).filter((m) => m?.includes("line"));
    expect(lines).toEqual(['{"line":"line1"}', '{"line":"line2"}', '{"line":"line3"}']);
    for (let i = 1; i < reports.length; i++) expect(reports[i]!.progress).toBeGreaterThan(reports[i - 1]!.progress);
  });

  it("stops a bash on notifications/cancelled and kills its process group", async () => {
    const dir = tempDir("tsclaw-mcp-cancel-");
    const abort = new AbortController();
    const pending = t.client.callTool(
      { name: "bash", arguments: { script: `sleep 60 & echo $! > ${dir}/child; echo $$ > ${dir}/pid; wait` } },
      CallToolResultSchema,
      { signal: abort.signal },
    );
    pending.catch(() => {});
    const read = (f: string) => {
      try {
        const n = Number(readFileSync(join(dir, f), "utf8"));
        return n > 0 ? n : undefined;
      } catch {
        return undefined;
      }
    };
    const pid = await eventualValue("the bash pid", () => read("pid"));
    const child = await eventualValue("the child pid", () => read("child"));
    expect(processAlive(pid)).toBe(true);
    abort.abort("test cancels");
    await expect(pending).rejects.toThrow();
    expect(await waitProcessGone(pid)).toBe(true);
    expect(await waitProcessGone(child)).toBe(true);
    // the connection still serves
    expect((await call("list_buses")).ok).toBe(true);
  });

  it("runs a task-augmented run_task as an MCP task: tasks/get, then tasks/result", async () => {
    fake.script(answer("Counted 3 TODOs"));
    const messages = [];
    for await (const m of t.client.experimental.tasks.callToolStream(
      { name: "run_task", arguments: { prompt: "Count the TODOs", sessionKey: `mcp-${kind}` } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(m);
    }
    const created = messages.find((m) => m.type === "taskCreated") as { task: { taskId: string; status: string } };
    expect(created.task.taskId).toMatch(/^task_/);
    expect(messages.some((m) => m.type === "taskStatus")).toBe(true);
    const final = messages.at(-1) as { type: string; result: any };
    expect(final.type).toBe("result");
    const result = envelopeOf(final.result).result;
    expect(result).toMatchObject({
      taskId: created.task.taskId,
      jobId: created.task.taskId,
      sessionKey: `mcp-${kind}`,
      status: "completed",
      continuePolling: false,
      nextAction: null,
      replayed: false,
    });
    expect(result.task).toMatchObject({ taskId: created.task.taskId, status: "completed", summary: "Counted 3 TODOs" });
    // the MCP task is the tsclaw task
    const got = await call("get_task", { taskId: created.task.taskId });
    expect(got.result.status).toBe("completed");
    const mcpTask = await t.client.experimental.tasks.getTask(created.task.taskId);
    expect(mcpTask).toMatchObject({
      taskId: created.task.taskId,
      status: "completed",
      ttl: null,
      pollInterval: expect.any(Number),
    });
    const list = await t.client.experimental.tasks.listTasks();
    expect(list.tasks.map((x) => x.taskId)).toContain(created.task.taskId);
  });

  it("cancels an MCP task with tasks/cancel (cancel_task)", async () => {
    fake.script(stall());
    const before = fake.requests.length;
    const r = (await t.client.request(
      {
        method: "tools/call",
        params: { name: "run_task", arguments: { prompt: "wait forever" }, task: { ttl: 60_000 } },
      },
      (
        await import("@modelcontextprotocol/sdk/types.js")
      ).CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const id = r.task.taskId;
    // Cancelled once its run waits on the model: cancelled before its run reaches the model, it
    // would leave the stall queued for the next test's run, which then never ends.
    await fake.waitForRequests(before + 1);
    const cancelled = await t.client.experimental.tasks.cancelTask(id);
    expect(cancelled).toMatchObject({ taskId: id, status: "cancelled" });
    expect((await call("get_task", { taskId: id })).result.status).toBe("cancelled");
    await expect(t.client.experimental.tasks.cancelTask(id)).rejects.toThrow(/terminal/);
  });

  it("notifies subscribers of a task resource on each change", async () => {
    const created = await call("task_create", { title: "Watched" });
    const uri = `tsclaw://task/${created.result.taskId}`;
    const updates: string[] = [];
    t.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    await t.client.subscribeResource({ uri });
    await call("task_update", { taskId: created.result.taskId, expectedVersion: 1, status: "in_progress" });
    await vi.waitFor(() => expect(updates.length, "updates").toBeGreaterThanOrEqual(1), WAIT);
    await call("task_update", { taskId: created.result.taskId, expectedVersion: 2, title: "Watched, renamed" });
    await vi.waitFor(() => expect(updates.length, "updates").toBeGreaterThanOrEqual(2), WAIT);
    expect(updates).toEqual([uri, uri]);
    const read = await t.client.readResource({ uri });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
      title: "Watched, renamed",
      version: 3,
    });
    await t.client.unsubscribeResource({ uri });
    const guide = await t.client.readResource({ uri: "tsclaw://guide" });
    expect((guide.contents[0] as { text: string }).text).toContain("## Operations");
    const templates = await t.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((x) => x.uriTemplate)).toEqual(["tsclaw://task/{taskId}"]);
  });

  it("keeps MCP tasks across a restart of the server", async () => {
    fake.script(answer("before the restart"));
    const r = (await t.client.request(
      { method: "tools/call", params: { name: "run_task", arguments: { prompt: "survive" }, task: { ttl: 60_000 } } },
      (
        await import("@modelcontextprotocol/sdk/types.js")
      ).CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const done = await t.client.experimental.tasks.getTaskResult(r.task.taskId, CallToolResultSchema);
    expect(envelopeOf(done as never).result.status).toBe("completed");
    const before = t.pid();
    await t.restart();
    expect(t.pid()).not.toBe(before);
    const got = await t.client.experimental.tasks.getTask(r.task.taskId);
    expect(got).toMatchObject({ taskId: r.task.taskId, status: "completed" });
    const again = await t.client.experimental.tasks.getTaskResult(r.task.taskId, CallToolResultSchema);
    expect(envelopeOf(again as never).result).toMatchObject({
      taskId: r.task.taskId,
      status: "completed",
      nextAction: null,
    });
    expect((await t.client.experimental.tasks.listTasks()).tasks.map((x) => x.taskId)).toContain(r.task.taskId);
  }, 60_000);

  it("keeps an MCP task that was working when the server restarted: the next server reports it failed, interrupted", async () => {
    fake.script(stall());
    const before = fake.requests.length;
    const r = await t.client.request(
      { method: "tools/call", params: { name: "run_task", arguments: { prompt: "cut short" }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const id = r.task.taskId;
    await fake.waitForRequests(before + 1);
    expect((await t.client.experimental.tasks.getTask(id)).status).toBe("working");
    await t.restart();
    const got = await t.client.experimental.tasks.getTask(id);
    expect(got).toMatchObject({ taskId: id, status: "failed", statusMessage: "interrupted by shutdown" });
    const result = envelopeOf((await t.client.experimental.tasks.getTaskResult(id, CallToolResultSchema)) as never);
    expect(result.result).toMatchObject({ taskId: id, status: "error", continuePolling: false });
    expect(result.result.task.error).toMatchObject({ code: "interrupted" });
  }, 60_000);
});
