/**
 * How bash is invoked: `bash -c SCRIPT` when the script and environment fit in what execve
 * takes, else the script goes through a private file (0600 in a 0700 directory) and the
 * oversized variables are exported by a prelude in that file. Linux refuses any single argument
 * or variable over 128 KiB (MAX_ARG_STRLEN) and the whole set over a quarter of the stack limit
 * with E2BIG; a script the caller may send must still run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Below MAX_ARG_STRLEN (131 072 bytes, the terminating NUL and "NAME=" included) with room to spare.
const MAX_ARG_BYTES = 100_000;
// Well below the usual 2 MiB ARG_MAX (8 MiB stack / 4), which also has to hold the pointers.
const MAX_TOTAL_BYTES = 1024 * 1024;
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Arguments and environment of one bash process, and what to remove after it. */
export interface Invocation {
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Removes the script file, if one was written. */
  cleanup(): void;
}

/** Plans the invocation of `script` with `env`. */
export function planInvocation(script: string, env: NodeJS.ProcessEnv): Invocation {
  const big: [string, string][] = [];
  let total = Buffer.byteLength(script);
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    const bytes = Buffer.byteLength(k) + Buffer.byteLength(v) + 2;
    if (bytes > MAX_ARG_BYTES && SHELL_NAME.test(k)) big.push([k, v]);
    else total += bytes;
  }
  if (big.length === 0 && total <= MAX_TOTAL_BYTES && Buffer.byteLength(script) <= MAX_ARG_BYTES) {
    return { args: ["-c", script], env, cleanup: () => {} };
  }
  // Through the file anyway: take every sizeable variable out of the environment too.
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && v.length > 4096 && SHELL_NAME.test(k) && !big.some(([b]) => b === k)) big.push([k, v]);
  }
  const small: NodeJS.ProcessEnv = { ...env };
  for (const [k] of big) delete small[k];
  const dir = mkdtempSync(join(tmpdir(), "tsclaw-bash-"));
  const file = join(dir, "script.sh");
  const prelude = big.map(([k, v]) => `export ${k}=${shellQuote(v)}\n`).join("");
  writeFileSync(file, prelude + script, { mode: 0o600 });
  return {
    args: [file],
    env: small,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Single-quotes `text` for bash (every byte kept as is). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}
