/**
 * The agent's only tool: bash. Its JSON Schema comes from the same zod schema as the `bash`
 * operation, so the model can pass `timeout` and the four event templates too. A failure (bad
 * arguments, too many processes) becomes an error result the model can read, not a dead run.
 */
import type { FunctionTool } from "openai/resources/responses/responses";
import { z } from "zod";
import type { BashRunner } from "../bash/bash-runner.js";
import { bashArgsSchema, toBashRequest } from "../bash/bash-schema.js";
import { ClawError, toClawError } from "../core/errors.js";

/** Name of the tool as the model sees it. */
export const BASH_TOOL_NAME = "bash";

/** The tool definition sent with every model call (built once). */
export const bashTool: FunctionTool = (() => {
  const { $schema: _drop, ...parameters } = z.toJSONSchema(bashArgsSchema, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return {
    type: "function",
    name: BASH_TOOL_NAME,
    description:
      "Run a bash script (bash -c, own process group) and get {stdout, stderr, exitCode, timeout}. Default timeout 600 s. " +
      "Optional event templates publish each output line, the exit code or the timeout flag to a bus.",
    parameters,
    // Optional fields are not allowed in strict mode, and the schema has many.
    strict: false,
  };
})();

/** What one tool call produced: the model-facing output and whether it failed. */
export interface ToolOutcome {
  result: unknown;
  isError: boolean;
}

/** Parses the model's argument text; undefined and an error message when it is not usable. */
export function parseToolArgs(text: string): { args?: unknown; error?: string } {
  try {
    return { args: text.trim() === "" ? {} : JSON.parse(text) };
  } catch (err) {
    return { error: `arguments are not valid JSON: ${(err as Error).message}` };
  }
}

/** Runs one bash call from the model. Throws only `cancelled` (the run was aborted). */
export async function runBashTool(
  bash: BashRunner,
  name: string,
  argsText: string,
  opts: {
    signal: AbortSignal;
    contextEnv: Record<string, string | undefined>;
    onOutput?: (stream: "stdout" | "stderr", chunk: Buffer) => void;
  },
): Promise<ToolOutcome> {
  if (name !== BASH_TOOL_NAME) return errorOutcome("unknown_tool", `no tool named ${name}; the only tool is bash`);
  const parsed = parseToolArgs(argsText);
  if (parsed.error) return errorOutcome("invalid_args", parsed.error);
  const checked = bashArgsSchema.safeParse(parsed.args);
  if (!checked.success) {
    return errorOutcome(
      "invalid_args",
      checked.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "),
    );
  }
  try {
    // The runner checks templates against the payload limit before the script starts.
    const result = await bash.run(toBashRequest(checked.data), opts);
    return { result, isError: false };
  } catch (err) {
    if (opts.signal.aborted) throw new ClawError("cancelled", "the run was aborted while bash was running");
    const e = toClawError(err);
    return errorOutcome(e.code, e.message);
  }
}

/** An error tool result. */
export function errorOutcome(code: string, message: string): ToolOutcome {
  return { result: { error: { code, message } }, isError: true };
}
