/**
 * MCP tools generated from the registry: one per operation that does not need a streaming
 * connection, named as the operation, with its summary and notes as description, its zod
 * schemas as JSON Schema 2020-12, and its declared effect flags as annotations.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { jsonSchemaOf } from "../../src/ops/catalog.js";
import type { AnyOpDef, OpFlags } from "../../src/ops/registry.js";

/** The one operation that accepts task-augmented calls: its MCP task is the tsclaw task. */
export const TASK_TOOL = "run_task";

/** MCP annotations from an operation's flags; every hint explicit (MCP's defaults assume the worst). */
export function annotationsOf(flags: OpFlags): NonNullable<Tool["annotations"]> {
  return {
    readOnlyHint: flags.readOnly,
    destructiveHint: flags.destructive,
    idempotentHint: flags.readOnly || flags.idempotent,
    openWorldHint: flags.openWorld,
  };
}

/** True when an operation is offered as an MCP tool. */
export function isTool(op: AnyOpDef): boolean {
  return !op.streamingOnly;
}

function toolOf(op: AnyOpDef): Tool {
  return {
    name: op.name,
    description: op.notes ? `${op.summary}\n\n${op.notes}` : op.summary,
    inputSchema: jsonSchemaOf(op.input, "input") as Tool["inputSchema"],
    outputSchema: jsonSchemaOf(op.output, "output") as NonNullable<Tool["outputSchema"]>,
    annotations: annotationsOf(op.flags),
    execution: { taskSupport: op.name === TASK_TOOL ? "optional" : "forbidden" },
  };
}

const cache = new WeakMap<readonly AnyOpDef[], Tool[]>();

/** The tool list of a registry, computed once. */
export function toolsOf(ops: readonly AnyOpDef[]): Tool[] {
  let tools = cache.get(ops);
  if (!tools) {
    tools = ops.filter(isTool).map(toolOf);
    cache.set(ops, tools);
  }
  return tools;
}
