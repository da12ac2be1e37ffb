/**
 * `npm run bench`: runs every scenario, each in a fresh node process, prints the table of
 * tsclaw vs baseline figures (raw libraries, and the peers Redis, NATS JetStream and
 * graphile-worker, each started by the bench itself) and keeps the run as
 * bench/results/<UTC date>.json. Smoke runs write bench/results/smoke.json and --only runs
 * bench/results/partial.json; both are ignored by git, so a smoke run changes no tracked file.
 *
 * Flags: --smoke (or BENCH_SMOKE=1) small sizes; --only bus,http runs some; --compare prints
 * each row's change against the previous run (the newest kept full run; for a smoke run the
 * previous smoke run); --no-peers skips the peer rows ("peer not installed"); --strict exits 1 when a target is missed (by default only a crash
 * does); --prof writes a CPU profile per scenario to $TMPDIR/tsclaw-bench-prof/ (kept out of
 * the repository); --markdown also prints a Markdown table.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { BENCH_DIR, SMOKE } from "./measure.js";
import {
  type BenchReport,
  datedName,
  datedRuns,
  formatComparison,
  RESULTS_DIR,
  readReport,
  writeReport,
} from "./results-store.js";
import { formatMarkdown, formatTable, type Row } from "./table.js";

const SCENARIOS = [
  "bus",
  "http",
  "ws",
  "replay",
  "bash",
  "tasks",
  "memory",
  "peer-publish",
  "peer-fanout",
  "peer-replay",
  "peer-tasks",
] as const;

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
      env: {
        ...process.env,
        BENCH_SMOKE: SMOKE ? "1" : "",
        BENCH_NO_PEERS: process.argv.includes("--no-peers") ? "1" : (process.env.BENCH_NO_PEERS ?? ""),
      },
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
const unknown = only?.filter((o) => !(SCENARIOS as readonly string[]).includes(o)) ?? [];
if (unknown.length) {
  process.stderr.write(`bench: unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.join(", ")}\n`);
  process.exit(2);
}
const names = only?.length ? SCENARIOS.filter((s) => only.includes(s)) : SCENARIOS;
const profDir = process.argv.includes("--prof") ? join(tmpdir(), "tsclaw-bench-prof") : undefined;
mkdirSync(RESULTS_DIR, { recursive: true });
if (profDir) {
  mkdirSync(profDir, { recursive: true });
  process.stderr.write(`bench: CPU profiles go to ${profDir}\n`);
}

const started = Date.now();
const loadAtStart = loadavg()[0]!;
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

const round2 = (n: number) => Math.round(n * 100) / 100;
const report: BenchReport = {
  date: new Date(started).toISOString(),
  smoke: SMOKE,
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  load: [round2(loadAtStart), round2(loadavg()[0]!)],
  seconds: Math.round((Date.now() - started) / 100) / 10,
  rows,
};
// A full run is kept under its date; smoke and partial (--only) runs overwrite one ignored file.
const file = join(RESULTS_DIR, only?.length ? "partial.json" : SMOKE ? "smoke.json" : datedName(new Date(started)));
const previousFile = SMOKE ? (existsSync(file) ? file : undefined) : datedRuns().at(-1);
const previous = previousFile ? readReport(previousFile) : undefined;
writeReport(file, report);

process.stdout.write(
  `\ntsclaw bench${SMOKE ? " (smoke sizes)" : ""}: ${report.node}, ${report.cpus} cpus, load ${report.load![0]} → ${report.load![1]}, ${report.seconds} s\n\n`,
);
process.stdout.write(`${formatTable(rows)}\n`);
if (process.argv.includes("--markdown")) process.stdout.write(`\n${formatMarkdown(rows)}\n`);
if (process.argv.includes("--compare")) {
  process.stdout.write(
    previous && previousFile
      ? `\n${formatComparison(previous, report, basename(previousFile))}\n`
      : "\nno previous run to compare with\n",
  );
}
const missed = rows.filter((r) => r.pass === false).length;
process.stdout.write(
  `\n${rows.filter((r) => r.pass === true).length} met, ${missed} missed, ${crashed} crashed; written to ${file}\n`,
);
process.exit(crashed > 0 || (missed > 0 && process.argv.includes("--strict")) ? 1 : 0);
