/** Shared bench helpers: sizes (full or smoke), clocks, percentiles, temp files, child scripts. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { JsonLinesSplitter } from "../adapters/jsonl.js";

/** True under BENCH_SMOKE=1 or --smoke: small sizes, the whole suite in well under a minute. */
export const SMOKE = process.env.BENCH_SMOKE === "1" || process.argv.includes("--smoke");

/** Picks the full size, or the smoke size in smoke mode. */
export function size(full: number, smoke: number): number {
  return SMOKE ? smoke : full;
}

/** Milliseconds, high resolution. */
export function now(): number {
  return performance.now();
}

/** The p-th percentile (0–100) of `values` (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Resident set size in MiB. */
export function rssMiB(): number {
  return process.memoryUsage.rss() / (1024 * 1024);
}

/** Runs a full GC when node was started with --expose-gc (run.ts does that). */
export function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Rounds of two GCs 100 ms apart the RSS must hold still for, and the most rounds to wait (a
 * smoke run's figures mean nothing, so it waits little: each of its readings cost up to 5 s).
 */
const STILL_ROUNDS = size(10, 2);
const MAX_ROUNDS = size(50, 4);

/**
 * The RSS in MiB once it has stopped falling after the load: two full GCs every 100 ms until
 * the reading has held within 0.5 MiB for a second. Read right after a GC, the RSS still holds
 * what the GC freed (V8 gives pages back from other threads a few ms later: 259 → 186 MiB within
 * 50 ms after 4 000 run tasks), and V8 shrinks its young generation only once allocation has
 * been low over several GCs (a further 20–30 MiB, about 600 ms in); both ends of a growth are
 * read this way, so the growth is what a server idle after the load keeps.
 */
export async function settledRss(): Promise<number> {
  const readings: number[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    gc();
    gc();
    await new Promise((r) => setTimeout(r, 100));
    readings.push(rssMiB());
    const last = readings.slice(-STILL_ROUNDS);
    if (last.length === STILL_ROUNDS && Math.max(...last) - Math.min(...last) <= 0.5) break;
  }
  return readings.at(-1)!;
}

/** A fresh temporary directory and its removal. */
export function tempDir(prefix = "tsclaw-bench-"): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Retries: a peer server or a worker thread may still be closing files as the removal starts.
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}

/** Runs `worker(i)` for i in [0, total) with at most `concurrency` in flight. */
export async function pool(concurrency: number, total: number, worker: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < total) await worker(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
}

/** The bench directory. */
export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/**
 * Spawns a TypeScript file of bench/ in a separate node process (through tsx), with `nodeArgs`
 * before it; its stdin is a pipe when `stdin` is "pipe".
 */
export function spawnBenchScript(
  file: string,
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
  nodeArgs: readonly string[] = [],
  stdin: "ignore" | "pipe" = "ignore",
): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, "--import", "tsx", join(BENCH_DIR, file), ...args], {
    stdio: [stdin, "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
}

/** Reads a child's stdout as JSON lines, calling `onLine` for each parsed line. */
export function onJsonLines(child: ChildProcess, onLine: (msg: any) => void): void {
  const lines = new JsonLinesSplitter({
    line: (line) => {
      if (line.trim()) onLine(JSON.parse(line));
    },
    oversize: (bytes) => process.stderr.write(`bench: a child's line of over ${bytes} bytes was dropped\n`),
  });
  child.stdout!.on("data", (chunk: Buffer) => lines.push(chunk));
}

/** JSON lines from a child, consumed in order with `next(pred)`. */
export interface ChildMessages {
  /** Resolves with the next unconsumed message matching `pred`; rejects if the child exits first. */
  next(pred: (msg: any) => boolean, timeoutMs?: number): Promise<any>;
}

/** Collects a child's JSON lines for {@link ChildMessages.next}. */
export function childMessages(child: ChildProcess): ChildMessages {
  const seen: any[] = [];
  let exited: number | null | undefined;
  const wakers = new Set<() => void>();
  onJsonLines(child, (msg) => {
    seen.push(msg);
    for (const w of [...wakers]) w();
  });
  child.once("exit", (code) => {
    exited = code;
    for (const w of [...wakers]) w();
  });
  return {
    next(pred, timeoutMs = 300_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error("bench child timed out")), timeoutMs);
        const finish = (err?: Error, msg?: any) => {
          clearTimeout(timer);
          wakers.delete(check);
          if (err) reject(err);
          else resolve(msg);
        };
        const check = () => {
          const i = seen.findIndex(pred);
          if (i >= 0) return finish(undefined, seen.splice(i, 1)[0]);
          if (exited !== undefined) finish(new Error(`bench child exited with ${exited} before answering`));
        };
        wakers.add(check);
        check();
      });
    },
  };
}

/** Resolves with the first JSON line from `child` matching `pred`; rejects if it exits first. */
export function waitForMessage(child: ChildProcess, pred: (msg: any) => boolean, timeoutMs = 300_000): Promise<any> {
  return childMessages(child).next(pred, timeoutMs);
}

/**
 * One pass of two sides of a comparison, `a` first on even passes and `b` first on odd ones, so
 * neither always runs on the other's leftovers (or always gets the machine's quiet moments first).
 */
export async function sidesInTurn<A, B>(pass: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  if (pass % 2 === 0) {
    const first = await a();
    return [first, await b()];
  }
  const first = await b();
  return [await a(), first];
}
