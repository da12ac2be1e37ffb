/**
 * What a scoped token may call is declared in each operation's definition (`scope`), not in
 * lists beside the registry: every registered operation either declares its scope or is refused
 * to scoped tokens, the catalog and /doc show it, and the operations a scoped token reaches are
 * exactly the run's bus, task, session reads and the harmless catalog ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeScoped, scopedOps, type TokenScope } from "../../src/access/token-scope.js";
import type { Claw } from "../../src/index.js";
import { OPS } from "../../src/ops/index.js";
import { type AnyOpDef, defineOp, opScopeSchema } from "../../src/ops/registry.js";
import { memClaw } from "../helpers/claw.js";

const ALL: readonly AnyOpDef[] = OPS;
/** What a scoped token may call, as the dispatcher derives it from the registry. */
const SCOPED_OPS = scopedOps(OPS);

/** A scope that holds every kind of reach: a bus, a session and a task. */
const FULL: TokenScope = {
  owner: "run run_1 of session s_1",
  buses: ["own"],
  sessionId: "s_1",
  sessionKey: "key-1",
  taskId: "t_1",
};

/** Arguments that name the scope's own bus, session and task, whatever the operation reads. */
const OWN_ARGS = { bus: "own", sessionId: "s_1", taskId: "t_1" };

/** Whether a full scope may call `op` with arguments naming its own things. */
function allowed(op: AnyOpDef): boolean {
  try {
    authorizeScoped(FULL, op, OWN_ARGS, "s_1", SCOPED_OPS);
    return true;
  } catch (err) {
    expect(err).toMatchObject({ code: "forbidden" });
    return false;
  }
}

let claw: Claw;
beforeAll(() => {
  claw = memClaw();
});
afterAll(async () => {
  await claw?.close();
});

describe("token scope from the operation definitions", () => {
  it("every registered operation declares a known scope or defaults to refused", async () => {
    const kinds = opScopeSchema.options as readonly string[];
    const { ops } = await claw.call("ops", {});
    expect(ops.map((e: { name: string }) => e.name)).toEqual(ALL.map((o) => o.name));
    for (const op of ALL) {
      if (op.scope !== undefined) expect(kinds).toContain(op.scope);
      const entry = ops.find((e: { name: string }) => e.name === op.name);
      expect(entry?.scope, op.name).toBe(op.scope ?? "none");
      // "approve" needs a grant no run's token has (an agent must not approve its own commands).
      expect(allowed(op), op.name).toBe(!["none", "approve"].includes(op.scope ?? "none"));
      if (op.scope === "approve")
        expect(() => authorizeScoped({ ...FULL, approve: true }, op, OWN_ARGS, "s_1", SCOPED_OPS)).not.toThrow();
    }
  });

  it("the operations a scoped token may call are the run's own bus, task, session reads and the catalog", () => {
    expect([...SCOPED_OPS].sort()).toEqual(
      [
        "out",
        "read",
        "subscribe",
        "unsubscribe",
        "get_task",
        "check_task",
        "task_update",
        "get_state",
        "get_messages",
        "get_session_stats",
        "get_last_assistant_text",
        "export_session",
        "ops",
        "doc",
        "server_identity",
      ].sort(),
    );
    // Derived, not listed: the set is exactly the operations that declare a reach a run's token has.
    expect([...SCOPED_OPS].sort()).toEqual(
      ALL.filter((o) => !["none", "approve"].includes(o.scope ?? "none"))
        .map((o) => o.name)
        .sort(),
    );
  });

  it("an operation that declares no scope is refused to scoped tokens, naming what they may call", () => {
    const added = defineOp({
      name: "brand_new",
      group: "meta",
      flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      summary: "An operation added without a scope",
      input: opScopeSchema.optional(),
      output: opScopeSchema.optional(),
      example: undefined,
      handle: null,
      handler: () => undefined,
    });
    let thrown: unknown;
    try {
      authorizeScoped(FULL, added, {}, "s_1", SCOPED_OPS);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ code: "forbidden", details: { scope: { buses: ["own"], taskId: "t_1" } } });
    expect((thrown as Error).message).toBe(
      `this token is scoped to run run_1 of session s_1: operation brand_new is outside its scope. It may call ${SCOPED_OPS.join(", ")} on its own bus, session and task only`,
    );
  });

  it("a declared scope still checks the arguments: another bus, task or session is refused", () => {
    const byName = (n: string) => ALL.find((o) => o.name === n)!;
    expect(() => authorizeScoped(FULL, byName("out"), { bus: "other" }, undefined, SCOPED_OPS)).toThrow(
      /bus "other" is not its bus/,
    );
    expect(() => authorizeScoped(FULL, byName("get_task"), { taskId: "t_2" }, undefined, SCOPED_OPS)).toThrow(
      /only task t_1 is its task/,
    );
    expect(() => authorizeScoped(FULL, byName("get_state"), { sessionId: "s_2" }, "s_2", SCOPED_OPS)).toThrow(
      /only session s_1 is its session/,
    );
    expect(() => authorizeScoped(FULL, byName("trim_bus"), { bus: "own" }, undefined, SCOPED_OPS)).toThrow(
      /trim_bus is outside its scope/,
    );
  });

  it("/doc says per operation what a scoped token may do", async () => {
    const doc = async (op: string) => (await claw.call("doc", { op })).markdown as string;
    expect(await doc("out")).toContain("Scoped tokens (an agent's `CLAW_TOKEN`): on their own buses only.");
    expect(await doc("bash")).toContain("Scoped tokens (an agent's `CLAW_TOKEN`): refused.");
    expect(await doc("check_task")).toContain("Scoped tokens (an agent's `CLAW_TOKEN`): on their own task only.");
    expect(await doc("get_messages")).toContain("Scoped tokens (an agent's `CLAW_TOKEN`): on their own session only.");
  });
});
