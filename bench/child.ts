/**
 * Runs one scenario in this process and prints its rows as one JSON line prefixed with
 * BENCH_ROWS, so run.ts gives every scenario a fresh process (clean heap, honest RSS).
 * Usage: node --import tsx --expose-gc bench/child.ts <scenario> [--smoke]
 */
import type { Row } from "./table.js";

const name = process.argv[2];
if (!name || !/^[a-z-]+$/.test(name)) {
  process.stderr.write("usage: bench/child.ts <scenario> [--smoke]\n");
  process.exit(2);
}
const mod = (await import(`./${name}.js`)) as { run: () => Promise<Row[]> };
const rows = await mod.run();
process.stdout.write(`BENCH_ROWS ${JSON.stringify(rows)}\n`);
process.exit(0);
