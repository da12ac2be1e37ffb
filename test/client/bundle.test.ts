/**
 * The client's import graph holds no Node built-in and no database: bundling its entry for a
 * neutral platform (as the package build does) resolves every import to a source file, none of
 * them under better-sqlite3, and the bundle imports nothing.
 */
import { build } from "esbuild";
import { expect, test } from "vitest";
import { ROOT } from "../adapters/cli-run.js";

test("tsclaw/client bundles for a neutral platform with no Node built-in, no better-sqlite3 and no imports left", async () => {
  const result = await build({
    entryPoints: [`${ROOT}src/client.ts`],
    absWorkingDir: ROOT,
    bundle: true,
    platform: "neutral",
    format: "esm",
    write: false,
    outfile: "client.js",
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs).toContain("src/client/connect.ts");
  expect(inputs.filter((i) => /better-sqlite3|^node:|node_modules\/ws\//.test(i))).toEqual([]);
  const imports = Object.values(result.metafile.inputs).flatMap((i) => i.imports);
  expect(imports.filter((i) => i.external)).toEqual([]);
  const output = Object.values(result.metafile.outputs)[0]!;
  expect(output.imports).toEqual([]);
});
