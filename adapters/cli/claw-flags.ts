/** The flags that open a claw (`stdio`; the same names and variables as `serve`). */
import type { ClawOptions } from "../../src/config.js";
import { flagOrEnv, type ParsedArgs } from "./args.js";

/** Help lines of the claw flags. */
export const CLAW_FLAGS_HELP = `  --db PATH              SQLite database file, or :memory:             CLAW_DB       (default ./claw.db)
  --model MODEL          default model                                 CLAW_MODEL    (default openai/gpt-5:online)
  --model-provider NAME  openrouter | openai                           CLAW_MODEL_PROVIDER (default openrouter)
  --base-url URL         any Responses-compatible server               CLAW_BASE_URL
  --project NAME         default project of tasks and memory           CLAW_PROJECT  (default: directory name)
  --durability MODE      normal | full (fsync every commit)            CLAW_DURABILITY (default normal)
`;

/** createClaw options from the command line and CLAW_* variables. */
export function clawOptionsFromFlags(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): ClawOptions {
  const durability = flagOrEnv(args, "durability", env) ?? "normal";
  if (durability !== "normal" && durability !== "full") throw new Error(`--durability must be normal or full, not "${durability}"`);
  return {
    db: flagOrEnv(args, "db", env) ?? "./claw.db",
    model: flagOrEnv(args, "model", env),
    provider: flagOrEnv(args, "model-provider", env),
    baseURL: flagOrEnv(args, "base-url", env),
    project: flagOrEnv(args, "project", env),
    durability,
  };
}
