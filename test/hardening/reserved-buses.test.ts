/**
 * The buses the server writes for itself (`tasks`, `nodes`, `schedules`, `approvals`) are
 * reserved: `out`, `trim_bus`, bash event specs and a session's bus are refused with
 * `bus_reserved` (403) for every caller, while reading them stays open and the server's own
 * task events still arrive. A run's bash tool publishes only on its session's bus: an event
 * spec naming any other bus is refused as the run's token would be.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NODES_BUS } from "../../src/agent/session-control.js";
import { RESERVED_BUSES } from "../../src/bus/reserved-buses.js";
import { ERROR_TABLE } from "../../src/core/errors.js";
import type { Claw } from "../../src/index.js";
import { TASKS_BUS } from "../../src/tasks/tasks-bus.js";
import {
  afterToolOutput,
  answer,
  callBash,
  type FakeResponses,
  startFakeResponses,
} from "../fixtures/fake-responses.js";
import { memClaw } from "../helpers/claw.js";
import { startServer } from "../helpers/server.js";

let claw: Claw;
let fake: FakeResponses;
beforeEach(async () => {
  fake = await startFakeResponses();
  claw = memClaw({ baseURL: fake.url });
});
afterEach(async () => {
  await claw.close();
  await fake.close();
});

describe("reserved buses", () => {
  it("are one list that names the server's own buses; bus_reserved is a 403 that is not retried", () => {
    expect(RESERVED_BUSES).toEqual(["tasks", "nodes", "schedules", "approvals"]);
    expect(RESERVED_BUSES).toContain(TASKS_BUS);
    expect(RESERVED_BUSES).toContain(NODES_BUS);
    expect(ERROR_TABLE.bus_reserved).toMatchObject({ status: 403, retryable: false });
  });

  it("out and trim_bus on each reserved bus are refused with bus_reserved; nothing is written", async () => {
    for (const bus of RESERVED_BUSES) {
      await expect(
        claw.bus.out({ bus, payload: { type: "task", taskId: "x", status: "cancelled" } }),
      ).rejects.toMatchObject({ code: "bus_reserved", details: { bus } });
      await expect(claw.bus.trim({ bus, keepLast: 0 })).rejects.toMatchObject({ code: "bus_reserved" });
      expect((await claw.bus.read({ bus })).events).toEqual([]);
    }
    // Other buses, even ones whose names start the same, stay open.
    expect((await claw.bus.out({ bus: "tasks.mine", payload: 1 })).seq).toBe(1);
  });

  it("reading them stays allowed, and the server's own task events still arrive there", async () => {
    const t = await claw.task.create({ title: "watched" });
    const page = await claw.bus.read({ bus: "tasks" });
    expect(page.events.map((e) => (e.payload as { taskId: string }).taskId)).toEqual([t.taskId]);
  });

  it("a bash call's event spec on a reserved bus is refused before the script starts", async () => {
    for (const field of ["stdoutLineEvent", "stderrLineEvent", "exitEvent", "timeoutEvent"] as const) {
      await expect(
        claw.bash({ script: "echo started > /dev/null; echo hi", [field]: { template: "{payload}", bus: "nodes" } }),
      ).rejects.toMatchObject({ code: "bus_reserved" });
    }
    expect((await claw.bus.read({ bus: "nodes" })).events).toEqual([]);
  });

  it("start_session and run_task naming a reserved bus are refused", async () => {
    for (const bus of RESERVED_BUSES) {
      await expect(claw.session.start({ sessionKey: `s-${bus}`, bus })).rejects.toMatchObject({ code: "bus_reserved" });
      await expect(claw.task.run({ prompt: "hi", sessionKey: `t-${bus}`, bus })).rejects.toMatchObject({
        code: "bus_reserved",
      });
    }
    expect((await claw.session.list({})).sessions).toEqual([]);
  });

  it("over HTTP: out on tasks answers 403 bus_reserved", async () => {
    const server = await startServer(memClaw());
    try {
      const r = await server.post({ op: "out", args: { bus: "tasks", payload: { forged: true } } });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("bus_reserved");
    } finally {
      await server.close();
    }
  });
});

describe("a run's bash tool stays on its session's bus", () => {
  /** Runs one prompt whose model calls bash once with `args`; returns the tool's result. */
  async function toolResult(sessionKey: string, args: unknown): Promise<any> {
    fake.setDefault((req) => (afterToolOutput(req) ? answer("done") : callBash(args)));
    const session = await claw.session.start({ sessionKey, bus: `bus-${sessionKey}` });
    await claw.session.prompt({ sessionId: session.sessionId, message: "go" });
    const messages = await claw.session.messages({ sessionId: session.sessionId });
    return messages.messages.find((m) => m.role === "tool_result")?.result;
  }

  it("an event spec on tasks, nodes or another session's bus is refused; nothing reaches that bus", async () => {
    const other = await claw.session.start({ sessionKey: "victim", bus: "victim-bus" });
    for (const bus of ["tasks", "nodes", "approvals", other.bus, "thebus"]) {
      const result = await toolResult(`forger-${bus}`, {
        script: "echo forged",
        stdoutLineEvent: { template: { type: "task", taskId: "t", status: "cancelled", line: "{payload}" }, bus },
      });
      expect(result, bus).toMatchObject({ error: { code: "forbidden" } });
      expect((await claw.bus.read({ bus })).events.filter((e) => JSON.stringify(e.payload).includes("forged"))).toEqual(
        [],
      );
    }
  });

  it("an event spec without a bus publishes on the session's bus, not the default one", async () => {
    const result = await toolResult("own", {
      script: "echo mine",
      stdoutLineEvent: { template: { line: "{payload}" } },
    });
    expect(result).toMatchObject({ exitCode: 0 });
    const own = await claw.bus.read({ bus: "bus-own" });
    expect(own.events.map((e) => e.payload)).toContainEqual({ line: "mine" });
    const shared = await claw.bus.read({ bus: "thebus" });
    expect(shared.events.map((e) => e.payload)).not.toContainEqual({ line: "mine" });
  });
});
