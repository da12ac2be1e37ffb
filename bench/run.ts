/**
 * `npm run bench`: runs every scenario, each in a fresh node process, prints the table of
 * tsclaw vs baseline figures (raw libraries, and the peers Redis, NATS JetStream and
 * graphile-worker, each started by the bench itself) and keeps the run as
 * bench/results/<UTC date>.json. Smoke runs write bench/results/smoke.json and --only runs
 * bench/results/partial.json; both are ignored by git, so a smoke run changes no tracked file.
 *
 * Flags (strict: an unknown one prints the usage and exits 2; --help prints it): see USAGE.
 * --compare compares with the newest kept full run (for a smoke run, the previous smoke run).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, pool } from "./measure.js";
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
  "session-turn",
  "memory",
  "schedules",
  "peer-publish",
  "peer-fanout",
  "peer-replay",
  "peer-tasks",
] as const;

function runScenario(name: string, profDir?: string): Promise<Row[]> {
  const args = ["--import", "tsx", "--expose-gc"];
  // One directory per scenario and no fixed file name: tsx's loader runs on its own thread, and
  // with one name its profile would overwrite the scenario's.
  if (profDir) args.push("--cpu-prof", `--cpu-prof-dir=${join(profDir, name)}`);
  args.push(join(BENCH_DIR, "child.ts"), name);
  if (SMOKE) args.push("--smoke");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        BENCH_SMOKE: SMOKE ? "1" : "",
        BENCH_NO_PEERS: parsed["no-peers"] ? "1" : (process.env.BENCH_NO_PEERS ?? ""),
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

const USAGE = `usage: npm run bench [-- options]   (or: npx tsx bench/run.ts [options])

Runs every scenario, each in a fresh node process, prints the table and keeps the run as
bench/results/<UTC date>.json. Scenarios run one at a time (never in parallel: they would
measure each other); the run records the machine's load at its start and end.

  --smoke          small sizes, two scenarios at a time (about a minute; what CI runs); writes results/smoke.json
  --only A,B       run some scenarios (writes results/partial.json); known: ${SCENARIOS.join(", ")}
  --compare        also print each row's change against the previous run
  --no-peers       skip the peer rows (Redis, NATS, PostgreSQL), reported as "peer not installed"
  --strict         exit 1 when a target is missed (by default only a crash does)
  --prof           CPU profiles per scenario in $TMPDIR/tsclaw-bench-prof/<scenario>/ (one per thread)
  --markdown       also print the table as Markdown
  -h, --help       this text
`;

let parsed: ReturnType<typeof parseOptions>;
function parseOptions() {
  return parseArgs({
    strict: true,
    allowPositionals: false,
    options: {
      smoke: { type: "boolean" },
      only: { type: "string" },
      compare: { type: "boolean" },
      "no-peers": { type: "boolean" },
      strict: { type: "boolean" },
      prof: { type: "boolean" },
      markdown: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
}
try {
  parsed = parseOptions();
} catch (err) {
  process.stderr.write(`bench: ${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (parsed.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const SMOKE = parsed.smoke === true || process.env.BENCH_SMOKE === "1";
const only = parsed.only?.split(",").filter(Boolean);
const unknown = only?.filter((o) => !(SCENARIOS as readonly string[]).includes(o)) ?? [];
if (unknown.length) {
  process.stderr.write(`bench: unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.join(", ")}\n`);
  process.exit(2);
}
const names = only?.length ? SCENARIOS.filter((s) => only.includes(s)) : SCENARIOS;
const profDir = parsed.prof ? join(tmpdir(), "tsclaw-bench-prof") : undefined;
mkdirSync(RESULTS_DIR, { recursive: true });
if (profDir) {
  mkdirSync(profDir, { recursive: true });
  process.stderr.write(`bench: CPU profiles go to ${profDir}\n`);
}

const started = Date.now();
const loadAtStart = loadavg()[0]!;
const rows: Row[] = [];
let crashed = 0;
/**
 * One scenario's rows; a crash becomes a failed row (and counts) instead of ending the run.
 */
async function rowsOf(name: string): Promise<Row[]> {
  const t0 = Date.now();
  process.stderr.write(`bench: ${name}${SMOKE ? " (smoke)" : ""} …\n`);
  try {
    return await runScenario(name, profDir);
  } catch (err) {
    crashed++;
    process.stderr.write(`bench: ${(err as Error).message}\n`);
    return [
      {
        scenario: name,
        unit: "",
        tsclaw: null,
        baseline: null,
        ratio: null,
        target: null,
        pass: false,
        note: `failed: ${(err as Error).message.slice(0, 200)}`,
      },
    ];
  } finally {
    process.stderr.write(`bench: ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
}

// A full run measures one scenario at a time, so no two measure each other. A smoke run only
// checks that every scenario still runs (its sizes are too small for its figures to mean
// anything), so it runs two at a time; rows keep the scenarios' order either way.
const byName = new Map<string, Row[]>();
await pool(SMOKE ? 2 : 1, names.length, async (i) => byName.set(names[i]!, await rowsOf(names[i]!)));
for (const name of names) rows.push(...byName.get(name)!);

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
if (parsed.markdown) process.stdout.write(`\n${formatMarkdown(rows)}\n`);
if (parsed.compare) {
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
process.exit(crashed > 0 || (missed > 0 && parsed.strict === true) ? 1 : 0);
