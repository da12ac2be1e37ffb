/**
 * Runs the tsclaw CLI as a user runs the built binary: the source is bundled once per test file
 * with esbuild (dependencies left external, as in the package), then started with node. Starting
 * the bundle takes a fraction of the time of transpiling through tsx on every spawn.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { bundle, ROOT } from "../helpers/bundle.js";

export { ROOT };

/** Bundles adapters/cli/index.ts into node_modules/.cache (so bare imports resolve from the repo); returns the file. */
export function cliBundle(): Promise<string> {
  return bundle(`${ROOT}adapters/cli/index.ts`, "cli");
}

/** argv that runs the CLI (after {@link cliBundle} resolved). */
export async function cliCommand(): Promise<string[]> {
  return [process.execPath, await cliBundle()];
}

/**
 * The test runner's environment without the variables that point a CLI at a server or give it a
 * token (a set-but-empty CLAW_TOKEN is refused by serve, so they are removed, not blanked).
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ["CLAW_URL", "CLAW_TOKEN", "CLAW_TOKEN_FILE", "CLAW_INSECURE_LOOPBACK"]) delete env[k];
  return env;
}

/** Starts the CLI; stdout/stderr are collected as text. */
export async function spawnCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = ROOT,
): Promise<ChildProcess & { out: () => string; err: () => string; exited: Promise<number | null> }> {
  const cli = await cliCommand();
  const child = spawn(cli[0]!, [...cli.slice(1), ...args], {
    cwd,
    env: { ...cleanEnv(), ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return Object.assign(child, { out: () => out, err: () => err, exited });
}

/** Runs the CLI to completion with `input` on stdin. */
export async function runCli(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = await spawnCli(args, options.env, options.cwd);
  child.stdin!.end(options.input ?? "");
  const code = await child.exited;
  return { code, stdout: child.out(), stderr: child.err() };
}
