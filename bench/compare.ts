/**
 * Prints the change between two kept bench runs, row by row.
 * Usage: npx tsx bench/compare.ts [before.json after.json]   (default: the two newest full runs)
 */
import { basename } from "node:path";
import { datedRuns, formatComparison, readReport } from "./results-store.js";

const given = process.argv.slice(2);
const runs = datedRuns();
const [before, after] = given.length === 2 ? given : runs.slice(-2);
if (!before || !after) {
  process.stderr.write("bench/compare.ts: need two runs (give two files, or keep two full runs in bench/results/)\n");
  process.exit(2);
}
process.stdout.write(`${formatComparison(readReport(before), readReport(after), basename(before))}\n`);
process.stdout.write(`(now: ${basename(after)})\n`);
