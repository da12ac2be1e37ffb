/**
 * A task handed out over MCP 2026-07-28 is the durable tsclaw task: after kill -9 and a restart
 * on the same database, tasks/get answers it by the same id, with its result inlined.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { answer, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { raw } from "./modern-raw.js";

const TOKEN = "mcp-durable-token-0123456789";
let fake: FakeResponses;
let serve: ServeProcess | undefined;
beforeAll(async () => {
  fake = await startFakeResponses();
});
afterAll(async () => {
  await serve?.stop();
  await fake?.close();
});

const env = () => ({ OPENROUTER_API_KEY: "test-key", CLAW_BASE_URL: fake.url, CLAW_URL: "", CLAW_TOKEN: "" });

it("answers tasks/get for a task created over MCP after kill -9 and a restart", async () => {
  const db = join(tempDir("tsclaw-mcp-durable-"), "claw.db");
  serve = await startServe(db, ["--token", TOKEN], env());
  fake.script(answer("survived"));
  const created = (await raw(serve.url, TOKEN, "tools/call", { name: "run_task", arguments: { prompt: "durable" } }))
    .body.result;
  expect(created.resultType).toBe("task");
  await vi.waitFor(
    async () =>
      expect((await raw(serve!.url, TOKEN, "tasks/get", { taskId: created.taskId })).body.result.status).toBe(
        "completed",
      ),
    { timeout: 20_000, interval: 100 },
  );
  await serve.kill9();
  serve = await startServe(db, ["--token", TOKEN], env());
  const after = (await raw(serve.url, TOKEN, "tasks/get", { taskId: created.taskId })).body.result;
  expect(after).toMatchObject({ taskId: created.taskId, status: "completed", createdAt: created.createdAt });
  expect(after.result.structuredContent).toMatchObject({ taskId: created.taskId, status: "completed" });
}, 90_000);
