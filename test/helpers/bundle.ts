/**
 * A TypeScript entry point bundled once per test process with esbuild, as the package is built
 * (dependencies left external, code split at dynamic imports), for tests that start it as a
 * child process many times. Starting the bundle takes what starting the built package takes
 * (`tsclaw --version` 0.4 s of one core, a claw process about one); `node --import tsx` on the
 * same source takes three to four (tsx resolves and transpiles the whole tree on every start),
 * and a bundle in one file without splitting loads every dependency at its first line (1.5 s
 * for `--version`).
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Absolute path of the repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Where bundles go: inside node_modules, so the bare imports they leave external resolve from the repository's. */
const OUT_DIR = `${ROOT}node_modules/.cache/tsclaw-test`;

const built = new Map<string, Promise<string>>();

/** True while process `pid` exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the bundles of processes that are gone: a test worker that vitest ends with a signal
 * never runs its exit handler, and each bundle is a few dozen files.
 */
function sweepStale(): void {
  mkdirSync(OUT_DIR, { recursive: true });
  for (const f of readdirSync(OUT_DIR)) {
    const pid = /-(\d+)(?:\.mjs$|-)/.exec(f)?.[1];
    if (pid && !alive(Number(pid))) rmSync(`${OUT_DIR}/${f}`, { recursive: true, force: true });
  }
}

/**
 * Bundles `entry` (an absolute path) into node_modules/.cache/tsclaw-test as `<name>-<pid>.mjs`
 * and its chunks beside it (all in that one folder: code that finds files from its own
 * location, like the UI's assets, finds them as from the package's dist/); resolves with the
 * entry's path. Built once per process and entry; removed when the process exits. `name`
 * defaults to the entry's file name without `.ts`.
 */
export function bundle(entry: string, name = basename(entry, ".ts")): Promise<string> {
  let file = built.get(entry);
  if (!file) {
    if (built.size === 0) sweepStale();
    file = (async () => {
      const prefix = `${name}-${process.pid}`;
      const result = await build({
        entryPoints: { [prefix]: entry },
        bundle: true,
        splitting: true,
        chunkNames: `${prefix}-[name]-[hash]`,
        outExtension: { ".js": ".mjs" },
        platform: "node",
        format: "esm",
        target: "node20",
        packages: "external",
        outdir: OUT_DIR,
        absWorkingDir: ROOT,
        metafile: true,
        logLevel: "error",
      });
      const outputs = Object.keys(result.metafile.outputs).map((f) => `${ROOT}${f}`);
      process.once("exit", () => {
        for (const f of outputs) rmSync(f, { force: true });
      });
      return `${OUT_DIR}/${prefix}.mjs`;
    })();
    built.set(entry, file);
  }
  return file;
}
