/**
 * Where bench results live: every full run is kept as bench/results/<UTC date>.json (commit
 * the ones worth keeping); smoke and --only runs overwrite one ignored file each, so a smoke
 * run never changes a tracked file. `--compare` (and bench/compare.ts) print the change of each
 * row against an earlier run.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR } from "./measure.js";
import type { Row } from "./table.js";

/** bench/results */
export const RESULTS_DIR = join(BENCH_DIR, "results");

/** One run as written to disk. */
export interface BenchReport {
  date: string;
  smoke: boolean;
  node: string;
  platform: string;
  cpus: number;
  cpuModel?: string;
  /** 1-minute load average at the start and at the end: a busy machine explains a slow run. */
  load?: [number, number];
  seconds: number;
  rows: Row[];
}

const DATED = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.json$/;

/** The file name of a full run started at `date`: 2026-12-01T12-00-00Z.json */
export function datedName(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace(/:/g, "-")}Z.json`;
}

/** Paths of the kept full runs, oldest first. */
export function datedRuns(dir = RESULTS_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => DATED.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** Reads a run. */
export function readReport(path: string): BenchReport {
  return JSON.parse(readFileSync(path, "utf8")) as BenchReport;
}

/** Writes a run. */
export function writeReport(path: string, report: BenchReport): void {
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

function pct(from: number | null | undefined, to: number | null | undefined): string {
  if (from == null || to == null || !Number.isFinite(from) || !Number.isFinite(to) || from === 0) return "";
  const d = ((to - from) / Math.abs(from)) * 100;
  return `${d >= 0 ? "+" : ""}${d.toFixed(1)}%`;
}

function num(n: number | null | undefined): string {
  if (n == null) return "n/a";
  const a = Math.abs(n);
  return a >= 1000 ? Math.round(n).toLocaleString("en-US") : a >= 10 ? n.toFixed(1) : n.toFixed(3);
}

/**
 * The change of every row of `current` against the same scenario in `previous`: tsclaw's
 * figure and the ratio, before → after (%). Rows new in `current` say so.
 */
export function formatComparison(previous: BenchReport, current: BenchReport, previousName: string): string {
  const before = new Map(previous.rows.map((r) => [r.scenario, r]));
  const head = ["scenario", "unit", "tsclaw before", "tsclaw now", "change", "ratio before", "ratio now", "result"];
  const body = current.rows.map((r) => {
    const p = before.get(r.scenario);
    if (!p) return [r.scenario, r.unit, "new", num(r.tsclaw), "", "", num(r.ratio), ""];
    const result = p.pass === r.pass ? "" : r.pass === true ? "now met" : r.pass === false ? "now missed" : "";
    return [
      r.scenario,
      r.unit,
      num(p.tsclaw),
      num(r.tsclaw),
      pct(p.tsclaw, r.tsclaw),
      num(p.ratio),
      num(r.ratio),
      result,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 2 && i <= 6 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [
    `change against ${previousName} (${previous.date}${previous.smoke ? ", smoke" : ""}):`,
    "",
    line(head),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...body.map(line),
  ].join("\n");
}
