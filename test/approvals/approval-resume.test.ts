/**
 * Resuming a paused run after its claw closed and another opened on the same database file: the
 * calls of the paused model response after the approved one run too (in order), a session's own
 * prompt run (no task) goes on as well, and the clean close decided nothing.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { type Claw, createClaw } from "../../src/index.js";
import { answer, callBash, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";

let fake: FakeResponses;
let dir: string;
const open: Claw[] = [];

beforeEach(async () => {
  fake = await startFakeResponses();
  dir = tempDir();
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
  await fake.close();
});

function fileClaw(): Claw {
  const claw = createClaw({
    db: join(dir, "claw.db"),
    baseURL: fake.url,
    project: "test",
    validateOutputs: true,
    env: { ...process.env, OPENROUTER_API_KEY: "test-key" },
    log: () => {},
  });
  open.push(claw);
  return claw;
}
const call = (claw: Claw, op: string, args: object) => claw.call(op as never, args as never) as Promise<any>;
const pendingOf = async (claw: Claw) => (await call(claw, "approval_list", { status: "pending" })).approvals as any[];
const text = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");

test("the calls after the approved one in the same response run after the restart, in order, once", async () => {
  const log = join(dir, "log");
  fake.script(
    callBash([
      { script: `echo first >> ${log}` },
      { script: `rm -f ${dir}/nothing; echo second >> ${log}` },
      { script: `echo third >> ${log}` },
    ]),
    answer("all three"),
  );
  const first = fileClaw();
  const t = await first.task.run({
    prompt: "three steps",
    sessionKey: "steps",
    approval: {
      mode: "rules",
      rules: [
        { match: "\\brm\\b", decision: "ask" },
        { match: ".", decision: "allow" },
      ],
    },
  } as never);
  await vi.waitFor(async () => expect(await pendingOf(first)).toHaveLength(1), { timeout: 10_000 });
  expect(text(log)).toBe("first\n");
  await first.close();
  open.splice(open.indexOf(first), 1);

  const second = fileClaw();
  const [a] = await pendingOf(second);
  expect(a).toMatchObject({ status: "pending", taskId: t.taskId });
  expect(await second.task.get({ taskId: t.taskId })).toMatchObject({
    status: "needs_human",
    phase: "awaiting_approval",
  });
  await call(second, "approval_decide", { approvalId: a.approvalId, decision: "approve" });
  const done = await second.task.check({ taskId: t.taskId, waitMs: 10_000 });
  expect(done.task).toMatchObject({ status: "completed", summary: "all three" });
  expect(text(log)).toBe("first\nsecond\nthird\n");
  // The model's second request holds every call's output, once each.
  const outputs = (fake.requests.at(-1)!.body.input as any[]).filter((i) => i.type === "function_call_output");
  expect(outputs).toHaveLength(3);
});

test("a session's own prompt run paused on an approval goes on after the restart; deny runs nothing", async () => {
  const file = join(dir, "never");
  fake.script(callBash({ script: `echo ran >> ${file}` }), answer("understood, skipped"));
  const first = fileClaw();
  await call(first, "start_session", { sessionKey: "plain", approval: { mode: "always" } });
  const run = call(first, "prompt", { sessionKey: "plain", message: "write it" }).catch((err) => err);
  await vi.waitFor(async () => expect(await pendingOf(first)).toHaveLength(1), { timeout: 10_000 });
  await first.close();
  expect(await run).toMatchObject({ code: "shutting_down" }); // the caller hears the close; the run is kept
  open.splice(open.indexOf(first), 1);

  const second = fileClaw();
  const [a] = await pendingOf(second);
  await call(second, "approval_decide", { approvalId: a.approvalId, decision: "deny" });
  await vi.waitFor(
    async () => {
      const { messages } = await call(second, "get_messages", { sessionKey: "plain" });
      expect(messages.at(-1)).toMatchObject({ role: "assistant", text: "understood, skipped" });
    },
    { timeout: 10_000 },
  );
  expect(text(file)).toBe("");
  const outputs = (fake.requests.at(-1)!.body.input as any[]).filter((i) => i.type === "function_call_output");
  expect(outputs.map((o) => JSON.parse(o.output))).toEqual([{ denied: true, note: "denied (mode always)" }]);
});
