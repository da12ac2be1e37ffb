/**
 * The layer rule of ARCHITECTURE.md holds for the repository, and the check finds a break of it:
 * an upward import (a type import counts), an import from the leaf `access/` into another
 * layer, an adapter reaching into the store, and an adapter reading `claw.services`.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { layerViolations } from "../scripts/check-layers.js";
import { tempDir } from "./helpers/claw.js";

const dir = tempDir("tsclaw-layers-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

it("the repository keeps its layers", () => {
  expect(layerViolations(join(import.meta.dirname, ".."))).toEqual([]);
});

it("finds an upward type import, a leaf importing sideways, an adapter importing the store or reading services", () => {
  write("src/core/errors.ts", "export const E = 1;\n");
  write("src/ops/index.ts", "export const OPS = [];\n");
  write("src/bus/bus-service.ts", 'import type { OPS } from "../ops/index.js";\nexport type X = typeof OPS;\n');
  write("src/bash/runner.ts", 'import { E } from "../core/errors.js";\nexport const R = E;\n');
  write("src/access/token-scope.ts", 'import { R } from "../bash/runner.js";\nexport const T = R;\n');
  write("src/store/store-url.ts", "export const U = 1;\n");
  write("adapters/cli/serve.ts", 'import { U } from "../../src/store/store-url.js";\nexport const S = U;\n');
  write("adapters/mcp/progress.ts", "export const listen = (claw: any) => claw.services.bus.listen;\n");
  const found = layerViolations(dir);
  expect(found).toHaveLength(4);
  expect(
    found.some((p) => /^src\/bus\/bus-service\.ts \(bus\/bash\/access\) imports src\/ops\/index\.ts \(ops\)/.test(p)),
  ).toBe(true);
  expect(
    found.some((p) => /^src\/access\/token-scope\.ts imports src\/bash\/runner\.ts: src\/access is a leaf/.test(p)),
  ).toBe(true);
  expect(found.some((p) => /^adapters\/cli\/serve\.ts imports src\/store\/store-url\.ts/.test(p))).toBe(true);
  expect(found.some((p) => /^adapters\/mcp\/progress\.ts uses claw\.services/.test(p))).toBe(true);
});
