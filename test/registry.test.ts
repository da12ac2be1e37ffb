/**
 * The registry is the single source: /doc, GET /doc?format=json and the `ops` catalog name exactly
 * the registered operations; every operation has a summary, schemas and an example that succeeds
 * when run (against the fake model server, with the ids it refers to seeded generically).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Claw, ERROR_TABLE } from "../src/index.js";
import { OPS } from "../src/ops/index.js";
import type { AnyOpDef } from "../src/ops/registry.js";
import { stdioClient } from "./adapters/clients.js";
import { type FakeResponses, startFakeResponses } from "./fixtures/fake-responses.js";
import { memClaw } from "./helpers/claw.js";
import { startServer, type TestServer } from "./helpers/server.js";

const ALL: readonly AnyOpDef[] = OPS;
const names = ALL.map((o) => o.name);
const aliases = ALL.flatMap((o) => o.aliases ?? []);

let fake: FakeResponses;
let server: TestServer;
beforeAll(async () => {
  fake = await startFakeResponses();
  server = await startServer(memClaw({ baseURL: fake.url }));
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe("the catalog and /doc name exactly the registered operations", () => {
  it("names are unique across names and aliases", () => {
    expect(new Set([...names, ...aliases]).size).toBe(names.length + aliases.length);
  });

  it("the ops operation and GET /doc?format=json list every operation once, with aliases", async () => {
    const viaOp = await server.op("ops", {});
    expect(viaOp.result.ops.map((o: any) => o.name)).toEqual(names);
    const res = await fetch(`${server.url}/doc?format=json`, { headers: server.auth });
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const viaHttp = (await res.json()) as any;
    expect(viaHttp.ops.map((o: any) => o.name)).toEqual(names);
    expect(viaHttp.ops.flatMap((o: any) => o.aliases)).toEqual(aliases);
  });

  it("GET /doc has one section per operation and no other", async () => {
    const res = await fetch(`${server.url}/doc`, { headers: server.auth });
    expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
    const md = await res.text();
    const headings = [...md.matchAll(/^### `([^`]+)`/gm)].map((m) => m[1]);
    expect(headings).toEqual(names);
    expect((await server.op("doc", {})).result.markdown).toBe(md);
  });

  it("the guide covers the envelope, every error code and the contracts", async () => {
    const md = server.claw.doc();
    for (const code of Object.keys(ERROR_TABLE)) expect(md, code).toContain(`\`${code}\``);
    for (const heading of [
      "Calling an operation",
      "The bus",
      "Bash templates",
      "Session events",
      "Run contract",
      "Completion contract",
    ]) {
      expect(md, heading).toMatch(new RegExp(`^##+ ${heading}`, "m"));
    }
    // Every non-streaming operation has an example: its body in the whole guide, a curl line
    // against this server in its own section.
    for (const op of ALL.filter((o) => !o.streamingOnly)) {
      expect(md).toContain(`{"op":"${op.name}","args":`);
      expect(server.claw.doc({ op: op.name })).toContain(`-d '{"op":"${op.name}"`);
    }
    // The whole guide does not repeat a curl line per operation.
    expect((md.match(/-d '\{"op":/g) ?? []).length).toBeLessThan(ALL.length / 2);
  });
});

describe("every operation is fully defined", () => {
  it.each(ALL.map((o) => [o.name, o] as const))(
    "%s has a one-line summary, object schemas, known error codes and a valid example",
    (_name, op) => {
      expect(op.summary.trim().length).toBeGreaterThan(10);
      expect(op.summary).not.toContain("\n");
      const entry = server.claw.ops().find((e) => e.name === op.name)!;
      expect(entry.input.type).toBe("object");
      expect(typeof entry.output).toBe("object");
      for (const code of op.errors ?? []) expect(Object.keys(ERROR_TABLE)).toContain(code);
      const parsed = op.input.safeParse(op.example);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    },
  );
});

/**
 * Turns an example into arguments that can succeed here: ids of tasks and sessions become ones
 * that exist, placeholders like "<server_identity.instance>" are filled, long waits shortened.
 */
async function prepare(claw: Claw, example: unknown): Promise<unknown> {
  const ex = structuredClone(example) as Record<string, unknown>;
  if (ex === null || typeof ex !== "object") return ex;
  let task: any;
  if ("taskId" in ex || "jobId" in ex) {
    task = await claw.call("task_create", { title: `seed ${Math.random()}` });
    for (const k of ["taskId", "jobId"]) if (k in ex) ex[k] = task.taskId;
    if ("expectedVersion" in ex) ex.expectedVersion = task.version;
  }
  if ("scheduleId" in ex) {
    const schedule = await claw.call("schedule_create", { when: { every: "1h" }, action: { out: { payload: 1 } } });
    ex.scheduleId = schedule.scheduleId;
    if ("expectedVersion" in ex) ex.expectedVersion = schedule.version;
  }
  if (typeof ex.sessionId === "string")
    ex.sessionId = ((await claw.call("start_session", { sessionKey: "seeded" })) as any).sessionId;
  if (typeof ex.waitMs === "number") ex.waitMs = Math.min(ex.waitMs, 200);
  // An approval the examples can read and decide: stored as a paused run's call stores it.
  if (typeof ex.approvalId === "string")
    ex.approvalId = (
      await (claw as any).services.approvals.store.insert({
        sessionId: "s_seed",
        runId: `run_seed_${Math.random()}`,
        taskId: null,
        callId: "call_seed",
        script: "echo seed",
        cwd: null,
        args: '{"script":"echo seed"}',
        reason: "mode always",
        onTimeout: "deny",
        expiresAt: null,
      })
    ).approvalId;
  const fill = (v: unknown): unknown => {
    if (typeof v === "string" && /^<.+>$/.test(v)) {
      if (v.includes("instance")) return claw.identity.instance;
      if (v.includes("project")) return task?.project ?? claw.config.project;
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(ex);
}

describe("every operation's example succeeds when run", () => {
  let claw: Claw;
  const outcomes = new Map<string, any>();

  beforeAll(async () => {
    claw = memClaw({ baseURL: fake.url, modelRetry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20 } } as never);
    // Sessions the examples name exist first (start_session itself returns an existing one).
    const keys = new Set(
      ALL.map((o) => (o.example as { sessionKey?: unknown })?.sessionKey).filter(
        (k): k is string => typeof k === "string",
      ),
    );
    if (names.includes("start_session"))
      for (const sessionKey of keys) await claw.call("start_session" as never, { sessionKey } as never);
    const stdio = stdioClient(claw);
    for (const op of ALL) {
      const args = await prepare(claw, op.example);
      outcomes.set(
        op.name,
        op.streamingOnly ? await stdio.request(op.name, args) : await claw.do({ op: op.name, args }),
      );
    }
    await stdio.close();
  }, 60_000);
  afterAll(async () => {
    await claw?.close();
  });

  it.each(names)("%s", (name) => {
    const r = outcomes.get(name);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
  });
});
