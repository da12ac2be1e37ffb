/**
 * The layer rule of ARCHITECTURE.md, checked (`npm run lint` runs it; a test runs it too): every
 * relative import in `src/` and `adapters/` is resolved to a file and ranked by its folder. A
 * file imports from its own layer or below; `access/` imports only `core/`; adapters do not reach
 * into `claw.services` or the store. Type imports count: a type is a dependency too.
 * Exits 1 and prints each violation; `--list` prints the layer of every file instead.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Layers bottom to top: each entry's folders (paths from the repository root, `/`-separated). */
export const LAYERS: readonly { name: string; folders: readonly string[] }[] = [
  { name: "core", folders: ["src/core"] },
  { name: "config", folders: ["src/config"] },
  { name: "store", folders: ["src/store"] },
  { name: "bus/bash/access", folders: ["src/bus", "src/bash", "src/access"] },
  {
    name: "agent/tasks/nodes/schedules/approvals",
    folders: ["src/agent", "src/tasks", "src/nodes", "src/schedules", "src/approvals"],
  },
  { name: "ops", folders: ["src/ops", "src/doc"] },
  { name: "dispatch", folders: ["src/dispatch"] },
  // Below claw: createClaw assembles the local claw from them, as connectClaw does the remote one.
  { name: "handles", folders: ["src/handles"] },
  { name: "claw", folders: ["src/claw"] },
  { name: "client", folders: ["src/client", "src/index.ts", "src/client.ts"] },
  { name: "adapters", folders: ["adapters"] },
];

/** Folders whose files import only the folders listed (besides their own). */
const LEAVES: Readonly<Record<string, readonly string[]>> = { "src/access": ["src/core"] };

/** What adapters must not import: store internals (they go through operations). */
const ADAPTERS_NEVER = ["src/store"];

/** The layer rank of a repository path, or -1 when it belongs to no layer. */
export function rankOf(path: string): number {
  return LAYERS.findIndex((l) => l.folders.some((f) => path === f || path.startsWith(`${f}/`)));
}

/** The folder (of a layer's) a path lies in. */
function folderOf(path: string): string | undefined {
  return LAYERS.flatMap((l) => l.folders).find((f) => path === f || path.startsWith(`${f}/`));
}

/** Every .ts file under `dir`, as repository paths. */
function tsFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(name)) out.push(relative(root, p).split("\\").join("/"));
    }
  };
  walk(join(root, dir));
  return out;
}

const IMPORT = /(?:^|[;\n])\s*(?:import|export)\s[^;]*?\sfrom\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

/** The repository paths a file imports relatively (`./x.js` resolved to `x.ts`). */
export function importsOf(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), "utf8").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2])!;
    const base = resolve(root, dirname(file), spec).replace(/\.js$/, "");
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((p) => existsSync(p));
    if (hit) out.push(relative(root, hit).split("\\").join("/"));
  }
  return out;
}

/** The violations of the layer rule in the repository at `root`, one line each. */
export function layerViolations(root: string): string[] {
  const problems: string[] = [];
  for (const file of [...tsFiles(root, "src"), ...tsFiles(root, "adapters")]) {
    const rank = rankOf(file);
    if (rank < 0) {
      problems.push(`${file}: in no layer; put it in a layer's folder (ARCHITECTURE.md)`);
      continue;
    }
    const own = folderOf(file)!;
    for (const target of importsOf(root, file)) {
      const to = rankOf(target);
      if (to < 0) continue; // outside src/ and adapters/ (package.json and the like)
      if (to > rank)
        problems.push(
          `${file} (${LAYERS[rank]!.name}) imports ${target} (${LAYERS[to]!.name}): a lower layer takes what it needs as a parameter`,
        );
      const leaf = LEAVES[own];
      const into = folderOf(target)!;
      if (leaf && into !== own && !leaf.includes(into))
        problems.push(`${file} imports ${target}: ${own} is a leaf, it imports only ${leaf.join(", ")}`);
      if (own === "adapters" && ADAPTERS_NEVER.some((n) => target === n || target.startsWith(`${n}/`)))
        problems.push(`${file} imports ${target}: adapters go through operations, not services or the store`);
    }
    if (own === "adapters" && /\bclaw\.services\b/.test(readFileSync(join(root, file), "utf8")))
      problems.push(`${file} uses claw.services: adapters go through operations, streams and claw.gate`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const problems = layerViolations(root);
  for (const p of problems) process.stderr.write(`${p}\n`);
  if (problems.length > 0) {
    process.stderr.write(`${problems.length} import(s) break the layer rule (ARCHITECTURE.md)\n`);
    process.exit(1);
  }
}
