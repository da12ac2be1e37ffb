/**
 * `npm run bench`: runs every scenario, each in a fresh node process, prints the table of
 * tsclaw vs raw-baseline figures and writes it as JSON to bench/results/latest.json
 * (smoke runs: bench/results/smoke.json; --only runs: bench/results/partial.json).
 *
 * Flags: --smoke (or BENCH_SMOKE=1) small sizes, under a minute in all; --only bus,http runs
 * some; --strict exits 1 when a target is missed (by default only a crash does); --prof writes
 * a CPU profile per scenario to $TMPDIR/tsclaw-bench-prof/ (kept out of the repository);
 * --markdown also prints a Markdown table.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, SMOKE } from "./measure.js";
import { formatMarkdown, formatTable, type Row } from "./table.js";

const SCENARIOS = ["bus", "http", "ws", "replay", "bash", "tasks", "memory"] as const;

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? "") : undefined;
}

function runScenario(name: string, profDir?: string): Promise<Row[]> {
  const args = ["--import", "tsx", "--expose-gc"];
  if (profDir) args.push("--cpu-prof", `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${name}.cpuprofile`);
  args.push(join(BENCH_DIR, "child.ts"), name);
  if (SMOKE) args.push("--smoke");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, BENCH_SMOKE: SMOKE ? "1" : "" },
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (c: string) => (out += c));
    child.on("error", reject);
    child.on("close", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("BENCH_ROWS "));
      if (code === 0 && line) resolve(JSON.parse(line.slice("BENCH_ROWS ".length)) as Row[]);
      else reject(new Error(`scenario ${name} exited with ${code}${out.trim() ? `: ${out.trim().slice(-500)}` : ""}`));
    });
  });
}

const only = flag("only")?.split(",").filter(Boolean);
const names = only?.length ? SCENARIOS.filter((s) => only.includes(s)) : SCENARIOS;
const resultsDir = join(BENCH_DIR, "results");
const profDir = process.argv.includes("--prof") ? join(tmpdir(), "tsclaw-bench-prof") : undefined;
mkdirSync(resultsDir, { recursive: true });
if (profDir) {
  mkdirSync(profDir, { recursive: true });
  process.stderr.write(`bench: CPU profiles go to ${profDir}\n`);
}

const started = Date.now();
const rows: Row[] = [];
let crashed = 0;
for (const name of names) {
  const t0 = Date.now();
  process.stderr.write(`bench: ${name}${SMOKE ? " (smoke)" : ""} …\n`);
  try {
    rows.push(...(await runScenario(name, profDir)));
  } catch (err) {
    crashed++;
    process.stderr.write(`bench: ${(err as Error).message}\n`);
    rows.push({
      scenario: name,
      unit: "",
      tsclaw: null,
      baseline: null,
      ratio: null,
      target: null,
      pass: false,
      note: `failed: ${(err as Error).message.slice(0, 200)}`,
    });
  }
  process.stderr.write(`bench: ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

const report = {
  date: new Date().toISOString(),
  smoke: SMOKE,
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  seconds: Math.round((Date.now() - started) / 100) / 10,
  rows,
};
// A partial run (--only) never overwrites the full table.
const file = join(resultsDir, only?.length ? "partial.json" : SMOKE ? "smoke.json" : "latest.json");
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);

process.stdout.write(
  `\ntsclaw bench${SMOKE ? " (smoke sizes)" : ""}: ${report.node}, ${report.cpus} cpus, ${report.seconds} s\n\n`,
);
process.stdout.write(`${formatTable(rows)}\n`);
if (process.argv.includes("--markdown")) process.stdout.write(`\n${formatMarkdown(rows)}\n`);
const missed = rows.filter((r) => r.pass === false).length;
process.stdout.write(
  `\n${rows.filter((r) => r.pass === true).length} met, ${missed} missed, ${crashed} crashed; written to ${file}\n`,
);
process.exit(crashed > 0 || (missed > 0 && process.argv.includes("--strict")) ? 1 : 0);
