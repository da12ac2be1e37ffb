/** Approvals of the agent's bash calls: every policy mode, the pause, approve once, deny, timeout, idempotent decisions, tasks. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import { answer, callBash, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { WAIT } from "../helpers/wait.js";
import { busPayloads, fakeClaw } from "../session/helpers.js";

let fake: FakeResponses;
let claw: Claw;
let dir: string;

beforeEach(async () => {
  fake = await startFakeResponses();
  claw = await fakeClaw(fake);
  dir = tempDir();
});
afterEach(async () => {
  await claw.close();
  await fake.close();
});

const call = (op: string, args: object) => claw.call(op as never, args as never) as Promise<any>;
/** The JSON the model got back as the output of its last tool call. */
const lastToolOutput = () => {
  const input = fake.requests.at(-1)!.body.input as any[];
  return JSON.parse(input.filter((i) => i.type === "function_call_output").at(-1).output);
};
const pending = async () => (await call("approval_list", { status: "pending" })).approvals as any[];

describe("approval policy", () => {
  it("never (the default): the call runs, nothing is stored", async () => {
    const file = join(dir, "never");
    fake.script(callBash({ script: `echo x >> ${file}` }), answer("done"));
    const s = await claw.session.start({ sessionKey: "never" });
    expect((await s.prompt({ message: "go" })).status).toBe("completed");
    expect(readFileSync(file, "utf8")).toBe("x\n");
    expect((await call("approval_list", {})).approvals).toEqual([]);
  });

  it("rules: allow runs, deny never runs and is never stored, no match asks", async () => {
    const allowed = join(dir, "allowed");
    const deleted = join(dir, "rm-target");
    fake.script(
      callBash([{ script: `echo a > ${allowed}` }, { script: `rm -f ${deleted}; echo gone > ${deleted}` }]),
      answer("done"),
    );
    await call("start_session", {
      sessionKey: "rules",
      approval: {
        mode: "rules",
        rules: [
          { match: "^echo a", decision: "allow" },
          { match: "\\brm\\b", decision: "deny" },
        ],
      },
    });
    const r = await call("prompt", { sessionKey: "rules", message: "go" });
    expect(r.status).toBe("completed");
    expect(readFileSync(allowed, "utf8")).toBe("a\n");
    expect(existsSync(deleted)).toBe(false);
    expect(lastToolOutput()).toEqual({ denied: true, note: "denied by rule \\brm\\b" });
    expect((await call("approval_list", {})).approvals).toEqual([]);
  });

  it("ask: stored before anything runs, the run pauses, events on both buses; approve runs it exactly once", async () => {
    const file = join(dir, "asked");
    fake.script(callBash({ script: `echo once >> ${file}`, cwd: dir }), answer("cleaned"));
    await call("start_session", {
      sessionKey: "ask",
      bus: "askbus",
      approval: { mode: "rules", rules: [{ match: "^ls", decision: "allow" }] },
    });
    const run = call("prompt", { sessionKey: "ask", message: "clean up" });
    await vi.waitFor(async () => expect(await pending()).toHaveLength(1), { timeout: 10_000 });
    const [a] = await pending();
    expect(a).toMatchObject({ status: "pending", script: `echo once >> ${file}`, cwd: dir, reason: "no rule matched" });
    expect(existsSync(file)).toBe(false);
    await vi.waitFor(async () => {
      expect((await busPayloads(claw, "askbus")).some((e) => e.type === "approval_requested")).toBe(true);
      expect((await busPayloads(claw, "approvals")).map((e) => e.type)).toEqual(["approval_requested"]);
    });
    const decided = await call("approval_decide", { approvalId: a.approvalId, decision: "approve" });
    expect(decided).toMatchObject({ status: "approved", decidedBy: "human" });
    expect((await run).status).toBe("completed");
    expect(readFileSync(file, "utf8")).toBe("once\n");
    expect(lastToolOutput()).toMatchObject({ stdout: "", exitCode: 0 });
    const again = await call("approval_decide", { approvalId: a.approvalId, decision: "approve" });
    expect(again).toMatchObject({ status: "approved", replayed: true });
    await expect(call("approval_decide", { approvalId: a.approvalId, decision: "deny" })).rejects.toMatchObject({
      code: "approval_conflict",
    });
    expect(readFileSync(file, "utf8")).toBe("once\n");
    const approvalsBus = await busPayloads(claw, "approvals");
    expect(approvalsBus.map((e) => e.type)).toEqual(["approval_requested", "approval_decided"]);
    expect(approvalsBus[1]).toMatchObject({ approvalId: a.approvalId, status: "approved" });
    expect(
      (await busPayloads(claw, "askbus")).filter((e) => e.type.startsWith("approval_")).map((e) => e.type),
    ).toEqual(["approval_requested", "approval_decided"]);
  });

  it("always + deny with a note: the model gets {denied, note} and the run goes on", async () => {
    const file = join(dir, "denied");
    fake.script(callBash({ script: `touch ${file}` }), answer("understood"));
    await call("start_session", { sessionKey: "always", approval: { mode: "always" } });
    const run = call("prompt", { sessionKey: "always", message: "go" });
    await vi.waitFor(async () => expect(await pending()).toHaveLength(1), { timeout: 10_000 });
    const [a] = await pending();
    expect(a.reason).toBe("mode always");
    await call("approval_decide", { approvalId: a.approvalId, decision: "deny", note: "not today" });
    expect(await run).toMatchObject({ status: "completed", text: "understood" });
    expect(lastToolOutput()).toEqual({ denied: true, note: "not today" });
    expect(existsSync(file)).toBe(false);
  });

  it("a timeout decides: deny by default, allow when onTimeout says so", async () => {
    const denied = join(dir, "timeout-deny");
    const allowed = join(dir, "timeout-allow");
    fake.script(
      callBash({ script: `touch ${denied}` }),
      answer("a"),
      callBash({ script: `touch ${allowed}` }),
      answer("b"),
    );
    await call("start_session", { sessionKey: "t1", approval: { mode: "always", timeout: "1s" } });
    await call("start_session", { sessionKey: "t2", approval: { mode: "always", timeout: "1s", onTimeout: "allow" } });
    expect((await call("prompt", { sessionKey: "t1", message: "go" })).status).toBe("completed");
    expect(lastToolOutput()).toMatchObject({ denied: true });
    expect(existsSync(denied)).toBe(false);
    expect((await call("prompt", { sessionKey: "t2", message: "go" })).status).toBe("completed");
    expect(existsSync(allowed)).toBe(true);
    const decided = (await call("approval_list", { status: "decided" })).approvals;
    expect(decided.map((a: any) => [a.status, a.decidedBy])).toEqual([
      ["approved", "timeout"],
      ["denied", "timeout"],
    ]);
  });

  it("run_task: the task waits as needs_human / awaiting_approval naming the command, then completes", async () => {
    const file = join(dir, "task");
    fake.script(
      callBash({ script: `rm -rf ${dir}/scratch; echo ran >> ${file}` }, { text: "Clearing the scratch space." }),
      answer("cleaned the directory"),
    );
    const t = await claw.task.run({
      prompt: "clean the directory",
      sessionKey: "task-s",
      approval: { mode: "rules", rules: [{ match: "\\brm\\b", decision: "ask" }] },
    } as never);
    await vi.waitFor(async () => expect((await claw.task.get({ taskId: t.taskId })).status).toBe("needs_human"), {
      timeout: 10_000,
    });
    const waiting = await claw.task.get({ taskId: t.taskId });
    expect(waiting.phase).toBe("awaiting_approval");
    expect(waiting.latestUpdate?.text).toContain("rm -rf");
    // The run's progress from before the approval (its turn's start, its message), held a
    // moment to be coalesced, comes due after the question: its timeline line goes in, but it
    // must not bury the question under an older state.
    await vi.waitFor(async () => {
      const { timeline } = await claw.task.get({ taskId: t.taskId, include: ["timeline"] });
      expect(timeline!.map((e) => e.text)).toContain("assistant: Clearing the scratch space.");
    }, WAIT);
    expect(await claw.task.get({ taskId: t.taskId })).toMatchObject({
      status: "needs_human",
      phase: "awaiting_approval",
      latestUpdate: { text: waiting.latestUpdate!.text },
    });
    const services = (claw as any).services;
    const [a] = await services.approvals.pendingForTask(t.taskId);
    expect(a).toMatchObject({ taskId: t.taskId, status: "pending" });
    await call("approval_decide", { approvalId: a.approvalId, decision: "approve" });
    const done = await claw.task.check({ taskId: t.taskId, waitMs: 10_000 });
    expect(done.task).toMatchObject({ status: "completed", summary: "cleaned the directory" });
    expect(readFileSync(file, "utf8")).toBe("ran\n");
  });

  it("a client's own bash operation is never held, whatever the server's default", async () => {
    await claw.close();
    claw = await fakeClaw(fake, { approval: { mode: "always" } });
    const r = await call("bash", { script: "echo mine" });
    expect(r.stdout).toBe("mine\n");
    expect((await call("approval_list", {})).approvals).toEqual([]);
  });

  it("the server's default applies to sessions that set none", async () => {
    await claw.close();
    claw = await fakeClaw(fake, { approval: { mode: "always", timeout: "1s" } });
    fake.script(callBash({ script: "echo held" }), answer("ok"));
    const s = await claw.session.start({ sessionKey: "default" });
    expect((await s.prompt({ message: "go" })).status).toBe("completed");
    expect(lastToolOutput()).toMatchObject({ denied: true });
  });

  it("unknown approvals are not_found; a bad rule is refused as invalid_args", async () => {
    await expect(call("approval_get", { approvalId: "apr_nope" })).rejects.toMatchObject({ code: "not_found" });
    await expect(
      call("start_session", {
        sessionKey: "bad",
        approval: { mode: "rules", rules: [{ match: "(", decision: "ask" }] },
      }),
    ).rejects.toMatchObject({ code: "invalid_args" });
  });
});

describe("who may decide", () => {
  it("an agent's scoped token never may (approve scope needed); one granted approve may", async () => {
    const { authorizeScoped } = await import("../../src/access/token-scope.js");
    const { approvalDecideOp } = await import("../../src/ops/approval.js");
    const agent = { owner: "run r of session s", buses: ["thebus"], sessionId: "s", taskId: "t" };
    const args = { approvalId: "apr_x", decision: "approve" };
    expect(() => authorizeScoped(agent, approvalDecideOp, args, "s", ["approval_decide"])).toThrow(/approve/);
    expect(() =>
      authorizeScoped({ ...agent, approve: true }, approvalDecideOp, args, "s", ["approval_decide"]),
    ).not.toThrow();
  });
});
