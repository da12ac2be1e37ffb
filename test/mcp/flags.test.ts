/** Each operation's effect flags: declared once, shown in the ops catalog, /doc and as MCP annotations. */
import { describe, expect, it } from "vitest";
import { annotationsOf } from "../../adapters/mcp/tool-list.js";
import { OPS } from "../../src/ops/index.js";
import { memClaw } from "../helpers/claw.js";

const flagsOf = (name: string) => OPS.find((o) => o.name === name)!.flags;

describe("operation flags", () => {
  it("follow the contract's list", () => {
    const readOnly = OPS.filter((o) => o.flags.readOnly).map((o) => o.name);
    for (const name of [
      "read",
      "check_task",
      "memory_search",
      "server_identity",
      "doc",
      "ops",
      "continuity_context",
      "task_telemetry",
    ])
      expect(readOnly).toContain(name);
    for (const o of OPS.filter((x) => /^(get_|list_)/.test(x.name))) expect(o.flags.readOnly, o.name).toBe(true);
    for (const o of OPS.filter((x) => x.flags.readOnly)) {
      expect(annotationsOf(o.flags), o.name).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
    expect(flagsOf("bash")).toMatchObject({ destructive: true, openWorld: true });
    for (const name of ["prompt", "run_task", "compact"]) expect(flagsOf(name).openWorld, name).toBe(true);
    for (const name of ["trim_bus", "delete_session"]) expect(flagsOf(name).destructive, name).toBe(true);
    for (const name of ["task_update", "cancel_task"]) expect(flagsOf(name).idempotent, name).toBe(true);
    for (const name of ["out", "run_task", "task_create", "memory_add"])
      expect(flagsOf(name).idempotent, name).toBe(false);
    const openWorld = OPS.filter((o) => o.flags.openWorld).map((o) => o.name);
    // Approving runs the agent's command; a schedule created, changed or triggered runs bash or a model.
    expect(openWorld.sort()).toEqual([
      "approval_decide",
      "bash",
      "compact",
      "prompt",
      "run_task",
      "schedule_create",
      "schedule_trigger",
      "schedule_update",
    ]);
  });

  it("appear in the ops catalog and in /doc", async () => {
    const claw = memClaw();
    try {
      const catalog = (await claw.call("ops", {})).ops;
      for (const entry of catalog) expect(entry.flags, entry.name).toEqual(flagsOf(entry.name));
      const doc = claw.doc();
      expect(doc).toContain("Effects: writes, destructive, not idempotent, open-world");
      const readSection = doc.slice(doc.indexOf("### `read`"), doc.indexOf("### `subscribe`"));
      expect(readSection).toContain("Effects: read-only, non-destructive, idempotent, closed-world.");
    } finally {
      await claw.close();
    }
  });
});
