/** The flags that open a claw (`stdio`; the same names and variables as `serve`). */

import { parseGoDuration } from "../../src/bash/duration.js";
import type { ClawOptions } from "../../src/config.js";
import { flagOrEnv, type ParsedArgs } from "./args.js";

/** Help lines of the claw flags. */
export const CLAW_FLAGS_HELP = `  --db PATH              SQLite database file, or :memory:             CLAW_DB       (default ./claw.db)
  --model MODEL          default model                                 CLAW_MODEL    (default openai/gpt-5:online)
  --model-provider NAME  openrouter | openai                           CLAW_MODEL_PROVIDER (default openrouter)
  --base-url URL         any Responses-compatible server               CLAW_BASE_URL
  --project NAME         default project of tasks and memory           CLAW_PROJECT  (default: directory name)
  --durability MODE      normal | full (fsync every commit)            CLAW_DURABILITY (default normal)
  --bus-max-events N     keep at most N newest events per bus          CLAW_BUS_MAX_EVENTS (default: all)
  --bus-max-age DUR      delete events older than DUR ("72h", "30m")   CLAW_BUS_MAX_AGE (default: never)
  --max-bash N           concurrent bash processes                     CLAW_MAX_BASH (default 32)
  --max-request-bytes N  request body, WebSocket message, stdio line   CLAW_MAX_REQUEST_BYTES (default 10485760)
`;

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, not "${text}"`);
  return n;
}

function duration(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0)
    throw new Error(`--${name} must be a Go duration such as "72h" or "30m", not "${text}"`);
  return ms;
}

/** createClaw options from the command line and CLAW_* variables. */
export function clawOptionsFromFlags(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): ClawOptions {
  const durability = flagOrEnv(args, "durability", env) ?? "normal";
  if (durability !== "normal" && durability !== "full")
    throw new Error(`--durability must be normal or full, not "${durability}"`);
  return {
    db: flagOrEnv(args, "db", env) ?? "./claw.db",
    model: flagOrEnv(args, "model", env),
    provider: flagOrEnv(args, "model-provider", env),
    baseURL: flagOrEnv(args, "base-url", env),
    project: flagOrEnv(args, "project", env),
    durability,
    retention: {
      maxEvents: positiveInt("bus-max-events", flagOrEnv(args, "bus-max-events", env)),
      maxAgeMs: duration("bus-max-age", flagOrEnv(args, "bus-max-age", env)),
    },
    limits: {
      maxBashProcesses: positiveInt("max-bash", flagOrEnv(args, "max-bash", env)),
      maxRequestBytes: positiveInt("max-request-bytes", flagOrEnv(args, "max-request-bytes", env)),
    },
  };
}
