/**
 * Bench result rows: the shape every scenario returns, the pass/miss rule, the printed table and
 * the JSON written next to it. A figure is only ever judged as a ratio against a baseline
 * measured in the same run, or against a stated bound; never in the test suite.
 */

/** How a row's figure is judged. `of` names the figure the bound applies to. */
export interface Target {
  op: ">=" | "<=" | "<";
  value: number;
  /** Which figure the bound applies to. Default: "ratio" */
  of?: "ratio" | "tsclaw";
}

/** One measured line of the table. */
export interface Row {
  scenario: string;
  /** Unit of the tsclaw and baseline figures, e.g. "events/s", "ms", "MiB". */
  unit: string;
  /** tsclaw's figure; null when the scenario could not run. */
  tsclaw: number | null;
  /** The raw baseline's figure from the same run; null when there is none. */
  baseline: number | null;
  /** tsclaw ÷ baseline for throughputs; for times the row says which way in `ratioNote`. */
  ratio: number | null;
  /** Target, or null when the row is reported only. */
  target: Target | null;
  /** true = met, false = missed, null = no target or not available. */
  pass: boolean | null;
  /** How the ratio reads, e.g. "time tsclaw ÷ raw (lower is better)". */
  ratioNote?: string;
  /** Free text: sizes, why n/a, the bound. */
  note?: string;
}

/** Builds a row, computing the ratio (tsclaw ÷ baseline unless given) and pass. */
export function row(r: Omit<Row, "ratio" | "pass"> & { ratio?: number | null }): Row {
  const ratio =
    r.ratio !== undefined
      ? r.ratio
      : r.tsclaw !== null && r.baseline !== null && r.baseline !== 0
        ? r.tsclaw / r.baseline
        : null;
  let pass: boolean | null = null;
  if (r.target) {
    const figure = (r.target.of ?? "ratio") === "ratio" ? ratio : r.tsclaw;
    if (figure !== null && Number.isFinite(figure)) {
      pass =
        r.target.op === ">="
          ? figure >= r.target.value
          : r.target.op === "<="
            ? figure <= r.target.value
            : figure < r.target.value;
    }
  }
  return { ...r, ratio, pass };
}

/** A row for a scenario whose parts are missing: reported, never faked. */
export function unavailable(scenario: string, unit: string, target: Target | null, why: string): Row {
  return { scenario, unit, tsclaw: null, baseline: null, ratio: null, target, pass: null, note: `n/a (${why})` };
}

function fmt(n: number | null): string {
  if (n === null) return "n/a";
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString("en-US");
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  if (abs >= 1) return n.toFixed(2);
  return n.toFixed(3);
}

function fmtTarget(t: Target | null): string {
  if (!t) return "report";
  return `${(t.of ?? "ratio") === "ratio" ? "ratio" : "value"} ${t.op === ">=" ? "≥" : t.op === "<=" ? "≤" : "<"} ${t.value}`;
}

/** Renders rows as a fixed-width text table. */
export function formatTable(rows: readonly Row[]): string {
  const head = ["scenario", "unit", "tsclaw", "baseline", "ratio", "target", "result"];
  const body = rows.map((r) => [
    r.scenario,
    r.unit,
    fmt(r.tsclaw),
    fmt(r.baseline),
    fmt(r.ratio),
    fmtTarget(r.target),
    r.pass === null ? (r.tsclaw === null ? "n/a" : "-") : r.pass ? "pass" : "MISS",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const out = [line(head), widths.map((w) => "-".repeat(w)).join("  ")];
  for (const b of body) out.push(line(b));
  const notes = rows
    .filter((r) => r.note || r.ratioNote)
    .map((r) => `  ${r.scenario}: ${[r.ratioNote, r.note].filter(Boolean).join("; ")}`);
  if (notes.length) out.push("", "notes:", ...notes);
  return out.join("\n");
}

/** Renders rows as a Markdown table (for the README's Performance section). */
export function formatMarkdown(rows: readonly Row[]): string {
  const out = ["| scenario | unit | tsclaw | baseline | ratio | target | result |", "|---|---|--:|--:|--:|---|---|"];
  for (const r of rows) {
    out.push(
      `| ${r.scenario} | ${r.unit} | ${fmt(r.tsclaw)} | ${fmt(r.baseline)} | ${fmt(r.ratio)} | ${fmtTarget(r.target)} | ${r.pass === null ? (r.tsclaw === null ? "n/a" : "-") : r.pass ? "pass" : "miss"} |`,
    );
  }
  return out.join("\n");
}
