/**
 * Builds the web dashboard (ui/) into dist/ui: one minified ES module and one stylesheet with
 * content-hashed names (served as immutable), the favicon, and index.html pointing at them.
 * Run by `npm run build` after tsup (whose clean step empties dist). Prints the sizes.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "ui");
const out = join(root, "dist", "ui");

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

const result = await build({
  entryPoints: { app: join(src, "src", "main.tsx") },
  bundle: true,
  minify: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: join(out, "assets"),
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  sourcemap: "linked",
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
  // The client is shared with Node: nothing of Node may reach the page.
  define: { "process.env.NODE_ENV": '"production"' },
});

const outputs = Object.keys(result.metafile.outputs).map((f) => basename(f));
const js = outputs.find((f) => f.endsWith(".js"));
const css = outputs.find((f) => f.endsWith(".css"));
if (!js || !css) throw new Error(`build-ui: expected one .js and one .css, got ${outputs.join(", ")}`);

const tags = [
  `<link rel="stylesheet" href="/ui/assets/${css}">`,
  `<script type="module" src="/ui/assets/${js}"></script>`,
].join("\n");
const html = readFileSync(join(src, "index.html"), "utf8").replace("<!--assets-->", tags);
writeFileSync(join(out, "index.html"), html);
copyFileSync(join(src, "favicon.svg"), join(out, "favicon.svg"));

for (const f of [js, css]) {
  const body = readFileSync(join(out, "assets", f));
  process.stderr.write(`ui: assets/${f} ${(body.length / 1024).toFixed(1)} KiB (${(gzipSync(body).length / 1024).toFixed(1)} KiB gzip)\n`);
}
