/** Test claws: in-memory by default, outputs validated against their schemas, a fake key. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Claw, type ClawOptions, createClaw } from "../../src/index.js";

/** A claw on ":memory:" with output validation on. Remember to close it (or use `using`-style afterEach). */
export function memClaw(options: ClawOptions = {}): Claw {
  return createClaw({
    db: ":memory:",
    validateOutputs: true,
    project: "test",
    env: { ...process.env, OPENROUTER_API_KEY: "test-key" },
    ...options,
  });
}

/** A fresh temporary directory. */
export function tempDir(prefix = "tsclaw-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
