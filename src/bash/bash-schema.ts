/**
 * The zod schema of bash arguments and result. The `bash` operation and the agent's bash tool
 * (its JSON Schema for the model) are both generated from it, and the runner's types are
 * inferred from it.
 */
import { z } from "zod";
import { busNameSchema } from "../bus/bus-name.js";
import { timeoutToMs } from "../core/duration.js";
import { jsonDepth } from "../core/json-depth.js";
import { MAX_TEMPLATE_DEPTH } from "./template.js";

// The OS takes C strings: a NUL byte would cut the script, a variable or the path short.
const osString = (what: string) => z.string().refine((v) => !v.includes("\0"), `${what} must not contain a NUL byte`);
const envName = z
  .string()
  .refine(
    (k) => k.length > 0 && !k.includes("=") && !k.includes("\0"),
    "a variable name must be non-empty, without = or NUL",
  );

/** `{template, bus?}`: one event per occurrence, published with `out`. */
export const eventSpecSchema = z
  .object({
    template: z
      .unknown()
      .refine(
        (t) => jsonDepth(t, MAX_TEMPLATE_DEPTH) <= MAX_TEMPLATE_DEPTH,
        `a template may be nested at most ${MAX_TEMPLATE_DEPTH} levels deep`,
      )
      .describe(
        'Any JSON value; every string equal to "{payload}" becomes the value itself, "{payload}" inside a longer string becomes its text. Its event must fit the payload limit (long lines are cut to fit)',
      ),
    bus: busNameSchema.optional().describe('Bus to publish to. Default: "thebus"'),
  })
  .strict();

/** Arguments of a bash run. */
export const bashArgsSchema = z
  .object({
    script: osString("script").describe("Bash script, run with bash -c in its own process group"),
    timeout: z
      .union([z.number(), z.string()])
      .optional()
      .superRefine((v, ctx) => {
        if (v === undefined) return;
        const ms = timeoutToMs(v);
        if (typeof ms === "string") ctx.addIssue({ code: "custom", message: ms });
      })
      .describe('Seconds as a number, or a Go duration such as "1.5s", "2m", "1h30m", "300ms". Default: 600 s'),
    cwd: osString("cwd").optional().describe("Working directory. Default: the server's"),
    env: z
      .record(envName, osString("an env value"))
      .optional()
      .describe("Variables merged over the inherited environment"),
    stdin: z.string().optional().describe("Text written to the script's stdin (then closed)"),
    stdoutLineEvent: eventSpecSchema.optional().describe("Publish one event per stdout line; {payload} is the line"),
    stderrLineEvent: eventSpecSchema.optional().describe("Publish one event per stderr line; {payload} is the line"),
    exitEvent: eventSpecSchema.optional().describe("Publish one event at exit; {payload} is the exit code (number)"),
    timeoutEvent: eventSpecSchema
      .optional()
      .describe("Publish one event at the end; {payload} is true when the run timed out"),
    keepBackground: z
      .boolean()
      .optional()
      .describe(
        "Leave background processes running when the script exits (they are still killed at timeout, abort and server exit). Default: false",
      ),
  })
  .strict();

/** Result of a bash run. */
export const bashResultSchema = z.object({
  stdout: z.string().describe("Captured stdout (the last 1 MiB when truncated)"),
  stderr: z.string().describe("Captured stderr (the last 1 MiB when truncated)"),
  exitCode: z.number().int().describe("Exit code; 128+N when killed by signal N"),
  timeout: z.boolean().describe("True when the run was killed at its timeout"),
  sandbox: z
    .enum(["bwrap", "none"])
    .describe("The sandbox the call ran in: bwrap (own PID namespace and /proc) or none"),
  truncated: z.boolean().optional().describe("True when stdout or stderr was cut to its tail"),
  linesCut: z
    .number()
    .int()
    .optional()
    .describe("Lines whose event was cut to fit the payload limit (absent when none)"),
  eventsDropped: z
    .number()
    .int()
    .optional()
    .describe("Lines not published because the call reached its line-event cap (absent when none)"),
});

/** `{template, bus?}` of one kind of bash event. */
export type EventSpec = z.infer<typeof eventSpecSchema>;
/** Validated bash arguments. */
export type BashArgs = z.infer<typeof bashArgsSchema>;
/** A bash request as the runner takes it: the arguments with the timeout in milliseconds. */
export type BashRequest = Omit<BashArgs, "timeout"> & { timeoutMs: number };
/** The result of a bash run. */
export type BashResult = z.infer<typeof bashResultSchema>;

/** Default bash timeout: 600 s. */
export const DEFAULT_BASH_TIMEOUT_MS = 600_000;

/** The timeout of validated args, in milliseconds. */
export function bashTimeoutMs(timeout: number | string | undefined): number {
  if (timeout === undefined) return DEFAULT_BASH_TIMEOUT_MS;
  const ms = timeoutToMs(timeout);
  return typeof ms === "number" ? ms : DEFAULT_BASH_TIMEOUT_MS;
}

/** Validated arguments as a runner request. */
export function toBashRequest(args: BashArgs): BashRequest {
  const { timeout, ...rest } = args;
  return { ...rest, timeoutMs: bashTimeoutMs(timeout) };
}
