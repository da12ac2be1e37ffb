/**
 * A TypeScript entry point bundled once per test process with esbuild (dependencies left
 * external, as in the package), for tests that start it as a child process many times. Starting
 * a bundle with plain node takes about a second of one core; `node --import tsx` on the same
 * source takes three to four (tsx resolves and transpiles the whole tree on every start), which
 * a test with a dozen restarts pays a dozen times.
 */
import { rmSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Absolute path of the repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const built = new Map<string, Promise<string>>();

/**
 * Bundles `entry` (an absolute path) into node_modules/.cache/tsclaw-test (there, so the bare
 * imports it leaves external resolve from the repository's node_modules); resolves with the
 * bundle's path, `<name>-<pid>.mjs`. Built once per process and entry; removed when the process
 * exits. `name` defaults to the entry's file name without `.ts`.
 */
export function bundle(entry: string, name = basename(entry, ".ts")): Promise<string> {
  let file = built.get(entry);
  if (!file) {
    file = (async () => {
      const outfile = `${ROOT}node_modules/.cache/tsclaw-test/${name}-${process.pid}.mjs`;
      process.once("exit", () => rmSync(outfile, { force: true }));
      await build({
        entryPoints: [entry],
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        packages: "external",
        outfile,
        logLevel: "error",
      });
      return outfile;
    })();
    built.set(entry, file);
  }
  return file;
}
