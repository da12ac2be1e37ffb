/** The bash operation. */
import type { TokenScope } from "../access/token-scope.js";
import { type BashArgs, bashArgsSchema, bashResultSchema, toBashRequest } from "../bash/bash-schema.js";
import { DEFAULT_BUS } from "../bus/bus-name.js";
import { defineOp } from "./registry.js";

export const bashOp = defineOp({
  name: "bash",
  group: "bash",
  flags: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  summary:
    "Run a bash script synchronously; optionally publish each output line, the exit code and the timeout flag as bus events.",
  notes: [
    "The script runs with `bash -c` in its own process group. The call owns every process it starts, including those that leave the group or session (`setsid`, `nohup`, double fork, `disown`): at the timeout (default 600 s; `timeout` is then true), when the caller goes away, and when the script exits (unless `keepBackground: true`), all of them get SIGTERM, then SIGKILL after the kill grace (1 s; at most 5 s). The call returns at most timeout + grace + about 1 s whatever its processes do with the pipes, and frees its `--max-bash` slot then. Processes left by `keepBackground` die when the server exits; after a crash of the server, at its next start on the same database at the latest.",
    "`sandbox` in the result says where the script ran: `bwrap` (bubblewrap: its own PID namespace and `/proc`, the host filesystem as is, so the server's processes, their environment and command line are not visible; PIDs the script sees are namespace PIDs) or `none`. The server's `--sandbox auto|bwrap|landlock|none` (`CLAW_SANDBOX`, default auto: bwrap when it works on the host) chooses; landlock is refused as unavailable (it needs system calls Node cannot make without native code).",
    'Each event spec is `{template, bus?}`. In the template, every string equal to `"{payload}"` becomes the value itself (a line as a string, the exit code as a number, the timeout flag as a boolean); `"{payload}"` inside a longer string becomes the value\'s text.',
    "Lines are split on `\\n` (a trailing `\\r` removed, a final unterminated line included). Every event of the run is committed, in order, before the result returns. Captured stdout/stderr keep the last 1 MiB each (`truncated: true`); every line is still published.",
    "Every event fits the payload limit (default 1 MiB of JSON): a template whose event cannot fit even with an empty value is refused with `invalid_args` before the script starts; a line whose event would pass the limit is cut so that it fits (`linesCut` counts them). A call publishes at most `maxEventsPerCall` line events (default 100 000; `--max-bash-events`, `CLAW_MAX_BASH_EVENTS`); later lines are not published and `eventsDropped` counts them, while the exit and timeout events are still published.",
    "A NUL byte in `script`, `env` (names or values) or `cwd`, an env name with `=`, and a template nested deeper than 64 levels are `invalid_args`. A script or variable too large for the OS's argument limit (128 KiB each) still runs: the server passes the script through a private file and exports large variables from it.",
    "Under `serve` the script gets `CLAW_URL` and a `CLAW_TOKEN` minted for this call alone and revoked when it returns (401 after that): it may `out`, `read` and `subscribe` on the buses this call's event specs name (`thebus` when they name none), and call `ops`, `doc`, `server_identity`; nothing else (no bash, no other bus). The server's own token never reaches a script.",
    "Provider API keys are removed from the environment. Every process of a call carries `TSCLAW_BASH=<instance>:<call>`, which is how the server finds what left the process group.",
  ].join("\n\n"),
  input: bashArgsSchema,
  output: bashResultSchema,
  example: {
    script: "echo hello; echo oops >&2",
    timeout: "10s",
    stdoutLineEvent: { template: { line: "{payload}" } },
    exitEvent: { template: { exit: "{payload}" } },
  },
  errors: ["too_many_requests", "cancelled", "bus_reserved"],
  handle: "bash",
  handler: async (args, { services, signal }) => {
    const { url } = services.config;
    // Served, the script may call back, with a token that ends with this call.
    const token = url ? services.tokens.mint(callScope(args)) : undefined;
    try {
      return await services.bash.run(toBashRequest(args), {
        signal,
        contextEnv: { CLAW_URL: url, CLAW_TOKEN: token?.token },
      });
    } finally {
      token?.revoke();
    }
  },
});

/** A bash call's token reaches the buses its events go to, and nothing of sessions or tasks. */
function callScope(args: BashArgs): TokenScope {
  const specs = [args.stdoutLineEvent, args.stderrLineEvent, args.exitEvent, args.timeoutEvent];
  const buses = new Set(specs.filter((s) => s !== undefined).map((s) => s.bus ?? DEFAULT_BUS));
  if (buses.size === 0) buses.add(DEFAULT_BUS);
  return { owner: "one bash call", buses: [...buses] };
}

/** Bash operations. */
export const bashOps = [bashOp] as const;
