/**
 * The agent's only tool: bash. Its JSON Schema comes from the same zod schema as the `bash`
 * operation, so the model can pass `timeout` and the four event templates too. A failure (bad
 * arguments, too many processes) becomes an error result the model can read, not a dead run.
 */
import type { FunctionTool } from "openai/resources/responses/responses";
import { z } from "zod";
import type { BashRunner } from "../bash/bash-runner.js";
import { type BashArgs, bashArgsSchema, toBashRequest } from "../bash/bash-schema.js";
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

/** The four event specs of a bash call. */
const EVENT_FIELDS = ["stdoutLineEvent", "stderrLineEvent", "exitEvent", "timeoutEvent"] as const;

/**
 * Keeps the call's events within the run's reach: a spec without a bus publishes on the run's
 * bus, and one naming another bus is refused (`forbidden`), exactly as the run's own token is
 * refused there. Returns the arguments with every bus filled in.
 */
export function scopeEventSpecs(args: BashArgs, runBus: string): BashArgs {
  const scoped: BashArgs = { ...args };
  for (const field of EVENT_FIELDS) {
    const spec = args[field];
    if (!spec) continue;
    const bus = spec.bus ?? runBus;
    if (bus !== runBus)
      throw new ClawError(
        "forbidden",
        `${field}.bus: a run's bash publishes only on its session's bus "${runBus}", not "${bus}"`,
        { issues: [{ path: `${field}.bus`, message: `only "${runBus}" is allowed` }], bus: runBus },
      );
    scoped[field] = { ...spec, bus };
  }
  return scoped;
}

/**
 * Runs one bash call from the model. Its event specs stay on the run's bus `opts.bus` (see
 * scopeEventSpecs). Throws only `cancelled` (the run was aborted).
 */
export async function runBashTool(
  bash: BashRunner,
  name: string,
  argsText: string,
  opts: {
    signal: AbortSignal;
    contextEnv: Record<string, string | undefined>;
    /** The run's session bus: event specs that name no bus publish there, and no other bus is allowed. */
    bus: string;
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
    const args = scopeEventSpecs(checked.data, opts.bus);
    const result = await bash.run(toBashRequest(args), {
      signal: opts.signal,
      contextEnv: opts.contextEnv,
      ...(opts.onOutput ? { onOutput: opts.onOutput } : {}),
    });
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
