/**
 * Telemetry is registry middleware: an operation that declares `telemetry` is recorded by the
 * dispatcher, with no telemetry code in its handler; one that does not is never recorded.
 */
import { afterEach, expect, test } from "vitest";
import { z } from "zod";
import { ClawError } from "../../src/core/errors.js";
import { Dispatcher } from "../../src/dispatch/dispatch.js";
import { telemetryMiddleware } from "../../src/dispatch/telemetry-middleware.js";
import type { Claw } from "../../src/index.js";
import { OPS } from "../../src/ops/index.js";
import { defineOp } from "../../src/ops/registry.js";
import { memClaw } from "../helpers/claw.js";

let claw: Claw | undefined;
afterEach(async () => {
  await claw?.close();
  claw = undefined;
});

const probeInput = z.object({ taskId: z.string(), fail: z.boolean().default(false) }).strict();

/** A new task-like operation whose handler knows nothing about telemetry. */
const probeOp = defineOp({
  name: "probe_task",
  group: "task",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "A probe.",
  input: probeInput,
  output: z.object({ task: z.object({ taskId: z.string(), status: z.string() }), pollNumber: z.number().int() }),
  example: { taskId: "t" },
  errors: ["not_found"],
  handle: null,
  telemetry: { fromArgs: () => ({ waitAskedMs: 7 }) },
  handler: (args) => {
    if (args.fail) throw new ClawError("not_found", "no such probe");
    return { task: { taskId: args.taskId, status: "done" }, pollNumber: 3 };
  },
});

/** The same operation without `telemetry`. */
const quietOp = defineOp({ ...probeOp, name: "quiet_task", telemetry: undefined });

test("an operation that declares telemetry is recorded by the dispatcher; one that does not is not", async () => {
  claw = memClaw();
  const services = claw.services;
  const dispatcher = new Dispatcher([probeOp, quietOp], () => services, true, [telemetryMiddleware]);

  await dispatcher.call("probe_task", { taskId: "task_probe" });
  await expect(dispatcher.call("probe_task", { taskId: "task_gone", fail: true })).rejects.toMatchObject({
    code: "not_found",
  });
  await dispatcher.call("quiet_task", { taskId: "task_quiet" });

  const { records } = await claw.task.telemetry({ op: "probe_task" });
  expect(records).toHaveLength(2);
  const [failed, ok] = records;
  // Derived from the result (task id, status, terminal retrieval, poll number) plus the declared note.
  expect(ok).toMatchObject({
    taskId: "task_probe",
    status: "done",
    terminalRetrieval: true,
    pollNumber: 3,
    waitAskedMs: 7,
    duplicate: false,
    errorCode: null,
  });
  // A failed call keeps what its arguments said, with the error code.
  expect(failed).toMatchObject({ taskId: "task_gone", waitAskedMs: 7, status: null, errorCode: "not_found" });
  expect((await claw.task.telemetry({ op: "quiet_task" })).records).toEqual([]);
});

test("every task operation but task_telemetry declares telemetry, and no other operation does", () => {
  const traced = OPS.filter((op) => op.telemetry !== undefined).map((op) => op.name);
  expect(traced.sort()).toEqual(
    ["cancel_task", "check_task", "get_task", "list_tasks", "run_task", "task_create", "task_update"].sort(),
  );
});
