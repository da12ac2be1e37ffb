/**
 * Progress of the long calls besides bash (which mcp.slow.test.ts covers over both transports):
 * `prompt` from its run's events, `check_task` and `read` with `waitMs` from the heartbeat,
 * each report's progress growing and its total the wait asked for.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import { answer, type FakeResponses, stall, startFakeResponses } from "../fixtures/fake-responses.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { WAIT } from "../helpers/wait.js";
import { envelopeOf, httpMcpClient } from "./clients.js";

let fake: FakeResponses;
let server: TestServer;
let client: Client;
let claw: Claw;
beforeAll(async () => {
  fake = await startFakeResponses();
  claw = memClaw({ baseURL: fake.url });
  server = await startServer(claw, {
    token: "mcp-progress-token",
    mcp: { progressIntervalMs: 100 },
  });
  client = await httpMcpClient(server.url, "mcp-progress-token");
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  await fake?.close();
});

interface Report {
  progress: number;
  total?: number;
  message?: string;
}

async function withProgress(name: string, args: Record<string, unknown>) {
  const reports: Report[] = [];
  const r = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
    onprogress: (p) => reports.push(p),
  });
  for (let i = 1; i < reports.length; i++) expect(reports[i]!.progress).toBeGreaterThan(reports[i - 1]!.progress);
  return { envelope: envelopeOf(r as never), reports };
}

describe("MCP progress of long calls", () => {
  it("read with waitMs: heartbeats toward the wait", async () => {
    const { envelope, reports } = await withProgress("read", { bus: "quiet", waitMs: 600 });
    expect(envelope.result.events).toEqual([]);
    expect(reports.length).toBeGreaterThan(0);
    for (const r of reports)
      expect(r).toMatchObject({ total: 600, message: expect.stringMatching(/^waiting for an event/) });
  });

  it("check_task: heartbeats while the task runs", async () => {
    fake.script(stall());
    const started = await client.callTool({ name: "run_task", arguments: { prompt: "never ends" } });
    const taskId = envelopeOf(started as never).result.taskId;
    // The run's changes (starting, waiting for the model) reach the tasks bus a
    // moment after run_task answers: once the last one is there, the stalled task changes no
    // more and only heartbeats remain.
    const waitingForModel = (p: unknown) => {
      const e = p as { taskId?: string; latestUpdate?: { text?: string } | null };
      return e.taskId === taskId && (e.latestUpdate?.text ?? "").startsWith("waiting for the model");
    };
    await vi.waitFor(async () => {
      const { events } = await claw.bus.read({ bus: "tasks", after: 0, limit: 1000 });
      expect(
        events.some((e) => waitingForModel(e.payload)),
        "the task's 'waiting for the model' change",
      ).toBe(true);
    }, WAIT);
    const { envelope, reports } = await withProgress("check_task", { taskId, waitMs: 600 });
    expect(envelope.result).toMatchObject({ continuePolling: true, task: { taskId, status: "in_progress" } });
    expect(reports.length).toBeGreaterThan(0);
    for (const r of reports)
      expect(r).toMatchObject({ total: 600, message: expect.stringMatching(/^waiting for the task/) });
    await client.callTool({ name: "cancel_task", arguments: { taskId } });
  });

  it("prompt: one report per event of its run", async () => {
    await client.callTool({ name: "start_session", arguments: { sessionKey: "progress" } });
    fake.script(answer("All done"));
    const { envelope, reports } = await withProgress("prompt", { sessionKey: "progress", message: "finish" });
    expect(envelope.ok).toBe(true);
    const messages = reports.map((r) => r.message ?? "");
    expect(messages.some((m) => m.includes("All done"))).toBe(true);
  });
});
