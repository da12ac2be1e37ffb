/**
 * Approvals through the MCP 2026-07-28 tasks extension: a run_task whose agent asks before a
 * command is `input_required` with the approval as an elicitation form keyed by its approvalId;
 * `tasks/update` decides it (approve runs the command once and the task completes; decline
 * denies, nothing runs), and a decided approval is no longer asked.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bashThenAnswer, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { memClaw, tempDir } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { raw } from "./modern-raw.js";

const TOKEN = "mcp-approvals-token";
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

const call = (method: string, params: Record<string, unknown>) => raw(server.url, TOKEN, method, params);
const ASK_RM = { mode: "rules", rules: [{ match: "\\brm\\b", decision: "ask" }] };

/** Waits until tasks/get shows `status`; resolves with the DetailedTask. */
async function until(taskId: string, status: string): Promise<any> {
  return vi.waitFor(
    async () => {
      const t = (await call("tasks/get", { taskId })).body.result;
      if (t.status !== status) throw new Error(`${t.status}, waiting for ${status}`);
      return t;
    },
    { timeout: 20_000, interval: 50 },
  );
}

/** Starts a run_task over MCP whose agent runs `script` (asking first) and then answers. */
async function askingTask(sessionKey: string, script: string): Promise<string> {
  fake.script(bashThenAnswer(script, "cleaned"));
  const created = await call("tools/call", {
    name: "run_task",
    arguments: { prompt: "clean the scratch directory", sessionKey, approval: ASK_RM },
  });
  expect(created.body.result).toMatchObject({ resultType: "task" });
  return created.body.result.taskId;
}

describe("approvals as input_required over the tasks extension", () => {
  it("asks with the command, approves through tasks/update, runs it once, and completes", async () => {
    const dir = tempDir();
    const marker = join(dir, "ran");
    const taskId = await askingTask("mcp-approve", `rm -f ${join(dir, "x")} && echo once >> ${marker}`);
    const waiting = await until(taskId, "input_required");
    const [approvalId, request] = (Object.entries(waiting.inputRequests) as [string, any][])[0]!;
    expect(approvalId).toMatch(/^apr_/);
    expect(request).toMatchObject({ method: "elicitation/create", params: { mode: "form" } });
    expect(request.params.message).toContain("rm -f");
    expect(request.params.requestedSchema.properties.decision.enum).toEqual(["approve", "deny"]);
    expect(existsSync(marker)).toBe(false); // nothing ran while it waited

    const ack = await call("tasks/update", {
      taskId,
      inputResponses: { [approvalId]: { action: "accept", content: { decision: "approve", note: "scratch" } } },
    });
    expect(ack.body.error).toBeUndefined();
    const done = await until(taskId, "completed");
    expect(done.result.structuredContent).toMatchObject({ taskId, status: "completed" });
    expect(readFileSync(marker, "utf8")).toBe("once\n");
    const decided = (
      await server.post({ op: "approval_get", args: { approvalId } }, { authorization: `Bearer ${TOKEN}` })
    ).body.result;
    expect(decided).toMatchObject({ status: "approved", note: "scratch" });
  });

  it("a declined request denies: the command never runs and the run goes on to its end", async () => {
    const dir = tempDir();
    const marker = join(dir, "ran");
    const taskId = await askingTask("mcp-decline", `rm -f ${join(dir, "y")} && echo once >> ${marker}`);
    const waiting = await until(taskId, "input_required");
    const [approvalId] = Object.keys(waiting.inputRequests);
    await call("tasks/update", { taskId, inputResponses: { [approvalId!]: { action: "decline" } } });
    await until(taskId, "completed");
    expect(existsSync(marker)).toBe(false);
    const denied = (
      await server.post({ op: "approval_get", args: { approvalId } }, { authorization: `Bearer ${TOKEN}` })
    ).body.result;
    expect(denied.status).toBe("denied");
    // An answered key is ignored (no second decision, no error): the ack is empty.
    const again = await call("tasks/update", {
      taskId,
      inputResponses: { [approvalId!]: { action: "accept", content: { decision: "approve" } } },
    });
    expect(again.body.error).toBeUndefined();
    expect(existsSync(marker)).toBe(false);
  });
});
