/** /doc describes the server it is served by, and serves one operation or section on request. */
import { afterEach, describe, expect, it } from "vitest";
import { ERROR_TABLE } from "../src/core/errors.js";
import { memClaw } from "./helpers/claw.js";
import { startServer, type TestServer } from "./helpers/server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function get(path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server!.url}${path}`, { headers: server!.auth });
  return { status: res.status, text: await res.text() };
}

describe("GET /doc", () => {
  it("names the running model, provider and limits, not the built-in defaults", async () => {
    server = await startServer(
      memClaw({ model: "my-model", provider: "openai", maxTurns: 7, limits: { maxPayloadBytes: 2048 } }),
    );
    const { text } = await get("/doc");
    expect(text).toContain("Default model of new sessions and tasks: `my-model` via `openai`");
    expect(text).toContain("event payload 2 KiB");
    expect(text).toContain("the payload is any JSON value (2 KiB at most on this");
    expect(text).toContain("A run that reaches 7 turns");
    expect(text).not.toContain("openai/gpt-5:online");
    expect(text).not.toMatch(/\{[A-Z_]+\}/); // every placeholder filled
  });

  it("has a meaning for every error code in its one error table", async () => {
    server = await startServer(memClaw());
    const { text } = await get("/doc?section=errors");
    for (const [code, e] of Object.entries(ERROR_TABLE)) {
      expect(e.meaning.length).toBeGreaterThan(10);
      expect(text).toContain(`| \`${code}\` | ${e.status} |`);
    }
  });

  it("?op= gives one operation, ?section= one section; unknown names get suggestions", async () => {
    server = await startServer(memClaw());
    const [op, alias, section, badOp, badSection, all] = await Promise.all([
      get("/doc?op=check_task"),
      get("/doc?op=task_get"),
      get("/doc?section=transports"),
      get("/doc?op=chek_task"),
      get("/doc?section=buss"),
      get("/doc"),
    ]);
    expect(op.status).toBe(200);
    expect(op.text).toMatch(/^### `check_task`/);
    expect(op.text).not.toContain("### `get_task`");
    expect(op.text.length).toBeLessThan(all.text.length / 10);
    expect(alias.text).toMatch(/^### `get_task`/);
    expect(section.text).toMatch(/^## The other ways in/);
    expect(section.text).toContain("Without `after` only new");
    expect(section.text).toContain("`Last-Event-ID` header wins over `?after`");
    expect(section.text).toContain("`retry: 2000`");
    expect(section.text).toContain("every 15 s as a heartbeat");
    expect(section.text).toContain("`?token=<token>`");
    expect(section.text).toContain("Requests run concurrently");
    expect(badOp.status).toBe(404);
    expect(JSON.parse(badOp.text).error).toMatchObject({
      code: "unknown_op",
      details: { suggestions: ["check_task"] },
    });
    expect(badSection.status).toBe(404);
    expect(JSON.parse(badSection.text).error).toMatchObject({ code: "not_found", details: { suggestions: ["bus"] } });
  });

  it("the doc operation takes the same op and section", async () => {
    const claw = memClaw();
    try {
      const viaOp = await claw.call("doc", { section: "run" });
      expect(viaOp.markdown).toBe(claw.doc({ section: "run" }));
      expect(viaOp.markdown).toMatch(/^## Run contract/);
      expect((await claw.call("doc", { op: "out" })).markdown).toMatch(/^### `out`/);
    } finally {
      await claw.close();
    }
  });
});
