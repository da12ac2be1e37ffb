/** The bash operation. */
import { bashArgsSchema, bashResultSchema, toBashRequest } from "../bash/bash-schema.js";
import { defineOp } from "../registry.js";

export const bashOp = defineOp({
  name: "bash",
  group: "bash",
  flags: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  summary:
    "Run a bash script synchronously; optionally publish each output line, the exit code and the timeout flag as bus events.",
  notes: [
    "The script runs with `bash -c` in its own process group. On timeout (default 600 s) the whole group is killed (SIGTERM, then SIGKILL after a grace), grandchildren included, and `timeout` is true.",
    'Each event spec is `{template, bus?}`. In the template, every string equal to `"{payload}"` becomes the value itself (a line as a string, the exit code as a number, the timeout flag as a boolean); `"{payload}"` inside a longer string becomes the value\'s text.',
    "Lines are split on `\\n` (a trailing `\\r` removed, a final unterminated line included). Every event of the run is committed, in order, before the result returns. Captured stdout/stderr keep the last 1 MiB each (`truncated: true`); every line is still published.",
    "Every event fits the payload limit (default 1 MiB of JSON): a template whose event cannot fit even with an empty value is refused with `invalid_args` before the script starts; a line whose event would pass the limit is cut so that it fits (`linesCut` counts them). A call publishes at most `maxEventsPerCall` line events (default 100 000; `--max-bash-events`, `CLAW_MAX_BASH_EVENTS`); later lines are not published and `eventsDropped` counts them, while the exit and timeout events are still published.",
    "A NUL byte in `script`, `env` (names or values) or `cwd`, an env name with `=`, and a template nested deeper than 64 levels are `invalid_args`. A script or variable too large for the OS's argument limit (128 KiB each) still runs: the server passes the script through a private file and exports large variables from it.",
    "If the caller goes away, the process group is killed. Provider API keys are removed from the environment.",
  ].join("\n\n"),
  input: bashArgsSchema,
  output: bashResultSchema,
  example: {
    script: "echo hello; echo oops >&2",
    timeout: "10s",
    stdoutLineEvent: { template: { line: "{payload}" } },
    exitEvent: { template: { exit: "{payload}" } },
  },
  errors: ["too_many_requests", "cancelled"],
  handler: (args, { services, signal }) =>
    services.bash.run(toBashRequest(args), { signal, contextEnv: baseContextEnv(services.config) }),
});

/** CLAW_URL / CLAW_TOKEN for a bash run outside any session. */
function baseContextEnv(config: { url?: string; token?: string }): Record<string, string | undefined> {
  return { CLAW_URL: config.url, CLAW_TOKEN: config.token };
}

/** Bash operations. */
export const bashOps = [bashOp] as const;
