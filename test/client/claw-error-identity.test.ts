/**
 * `ClawError` is one class for its users: an error thrown by `tsclaw/client` is `instanceof` the
 * `ClawError` imported from `tsclaw` and from `tsclaw/client`, in ESM and CommonJS alike, though
 * each of those four bundles holds its own copy of the class. Runs the built package (dist/) in a
 * node process of its own, as a user's program would load it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../adapters/cli-run.js";

const SCRIPT = `
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const dist = process.argv[2];
const classes = {
  "tsclaw (esm)": (await import(dist + "/index.js")).ClawError,
  "tsclaw (cjs)": require(dist + "/index.cjs").ClawError,
  "tsclaw/client (esm)": (await import(dist + "/client.js")).ClawError,
  "tsclaw/client (cjs)": require(dist + "/client.cjs").ClawError,
};
const refusing = async () =>
  new Response(JSON.stringify({ ok: false, error: { code: "unauthorized", message: "wrong token", retryable: false } }), {
    status: 401,
    headers: { "content-type": "application/json" },
  });
const thrown = {};
for (const [name, load] of [
  ["tsclaw/client (esm)", async () => import(dist + "/client.js")],
  ["tsclaw/client (cjs)", async () => require(dist + "/client.cjs")],
]) {
  const { connectClaw } = await load();
  try {
    await connectClaw({ url: "http://127.0.0.1:1", token: "t", fetch: refusing });
  } catch (err) {
    thrown["thrown by " + name] = err;
  }
}
thrown["made by tsclaw (esm)"] = new classes["tsclaw (esm)"]("not_found", "x");
thrown["made by tsclaw (cjs)"] = new classes["tsclaw (cjs)"]("not_found", "x");
const out = {};
for (const [what, err] of Object.entries(thrown))
  for (const [name, C] of Object.entries(classes)) out[what + " instanceof " + name] = err instanceof C;
for (const [name, C] of Object.entries(classes)) {
  out["plain Error instanceof " + name] = new Error("x") instanceof C;
  out["{code} instanceof " + name] = { code: "not_found" } instanceof C;
  out["null instanceof " + name] = null instanceof C;
}
out.code = thrown["thrown by tsclaw/client (cjs)"]?.code;
console.log(JSON.stringify(out));
`;

test("an error thrown by tsclaw/client is instanceof every ClawError export (ESM and CJS); nothing else is", () => {
  const dist = join(ROOT, "dist");
  expect(existsSync(join(dist, "client.cjs")), "npm run build first").toBe(true);
  const dir = mkdtempSync(join(tmpdir(), "tsclaw-error-"));
  const file = join(dir, "check.mjs");
  writeFileSync(file, SCRIPT);
  const run = spawnSync(process.execPath, [file, dist], { encoding: "utf8", timeout: 60_000 });
  expect(run.stderr).toBe("");
  const out = JSON.parse(run.stdout) as Record<string, unknown>;
  expect(out.code).toBe("unauthorized");
  const checks = Object.entries(out).filter(([k]) => k !== "code");
  expect(checks.length).toBe(28);
  for (const [what, is] of checks) expect([what, is]).toEqual([what, !/^(plain|\{code\}|null) /.test(what)]);
}, 60_000);
