/** `npm run bench -- --help` prints the usage and runs nothing; an unknown flag is refused, not ignored. */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("..", import.meta.url).pathname;
const results = join(root, "bench", "results");

function bench(...args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", join(root, "bench", "run.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, BENCH_SMOKE: "" },
  });
}

/** Every results file with its modification time: a run that started would add or touch one. */
function resultsState(): Record<string, number> {
  return Object.fromEntries(readdirSync(results).map((f) => [f, statSync(join(results, f)).mtimeMs]));
}

describe("bench flags", () => {
  it("--help and -h print the usage, exit 0 and start no scenario", () => {
    const before = resultsState();
    for (const flag of ["--help", "-h"]) {
      const r = bench(flag);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^usage: npm run bench/);
      expect(r.stdout).toContain("--smoke");
      expect(r.stderr).not.toContain("bench: bus");
    }
    expect(resultsState()).toEqual(before);
  });

  it("an unknown flag or scenario exits 2 with the reason and starts nothing", () => {
    const before = resultsState();
    const flag = bench("--smok");
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--smok'");
    expect(flag.stderr).toContain("usage: npm run bench");
    const scenario = bench("--only", "bsu");
    expect(scenario.status).toBe(2);
    expect(scenario.stderr).toContain("unknown scenario bsu");
    const positional = bench("smoke");
    expect(positional.status).toBe(2);
    expect(resultsState()).toEqual(before);
  });
});
