/**
 * bash: (1) `true` through the bash op vs child_process.spawn('bash', ['-c', 'true']), time ratio;
 * (2) `seq 1 N` with a stdout line event per line vs spawning the same command and inserting its
 * lines raw (one transaction per stdout chunk), throughput ratio.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { type Claw, createClaw } from "../src/index.js";
import { now, size, tempDir } from "./measure.js";
import { openRawDb, rawInserter } from "./raw-db.js";
import { type Row, row } from "./table.js";

function rawTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", "true"]);
    child.on("error", reject);
    child.on("close", () => resolve());
  });
}

async function timeTrue(claw: Claw, runs: number): Promise<{ ts: number; raw: number }> {
  let ts = 0;
  let raw = 0;
  // Interleaved, so drift in machine load hits both sides alike.
  for (let i = 0; i < runs; i++) {
    let t0 = now();
    await claw.bash({ script: "true" });
    ts += now() - t0;
    t0 = now();
    await rawTrue();
    raw += now() - t0;
  }
  return { ts: ts / runs, raw: raw / runs };
}

async function tsSeq(claw: Claw, lines: number): Promise<number> {
  const t0 = now();
  const r = await claw.bash({
    script: `seq 1 ${lines}`,
    stdoutLineEvent: { template: { line: "{payload}" }, bus: `seq-${Math.random()}` },
  });
  if (r.exitCode !== 0) throw new Error("seq failed");
  return now() - t0;
}

async function rawSeq(lines: number): Promise<number> {
  const tmp = tempDir();
  const db = openRawDb(join(tmp.dir, "raw.db"));
  const insert = rawInserter(db);
  try {
    const t0 = now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn("bash", ["-c", `seq 1 ${lines}`]);
      let rest = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop()!;
        insert(parts.map((line) => ({ line })));
      });
      child.on("error", reject);
      child.on("close", () => {
        if (rest) insert([{ line: rest }]);
        resolve();
      });
    });
    return now() - t0;
  } finally {
    db.close();
    tmp.remove();
  }
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const runs = size(150, 30);
  const lines = size(50_000, 10_000);
  const tmp = tempDir();
  const claw = createClaw({ db: join(tmp.dir, "claw.db"), project: "bench" });
  try {
    await timeTrue(claw, 5); // warm-up
    const t = await timeTrue(claw, runs);
    await tsSeq(claw, Math.min(lines, 5000));
    await rawSeq(Math.min(lines, 5000));
    const tsMs = Math.min(await tsSeq(claw, lines), await tsSeq(claw, lines));
    const rawMs = Math.min(await rawSeq(lines), await rawSeq(lines));
    return [
      row({
        scenario: "bash `true`",
        unit: "ms/run",
        tsclaw: t.ts,
        baseline: t.raw,
        target: { op: "<=", value: 1.3 },
        ratioNote: "time tsclaw ÷ raw spawn (lower is better)",
        note: `${runs} sequential runs, interleaved`,
      }),
      row({
        scenario: "bash `seq` with a line event each",
        unit: "lines/s",
        tsclaw: (lines / tsMs) * 1000,
        baseline: (lines / rawMs) * 1000,
        target: { op: ">=", value: 0.9 },
        note: `${lines} lines; raw = spawn + split + better-sqlite3 insert per stdout chunk`,
      }),
    ];
  } finally {
    await claw.close();
    tmp.remove();
  }
}
