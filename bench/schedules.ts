/**
 * Schedules: the firing lag of 1 000 schedules due every second on one node — the p99 of
 * (firing started − due time) — against a raw baseline of 1 000 `setTimeout` timers re-armed
 * every second at the same due times, in the same process; and the CPU share of a claw holding
 * 1 000 schedules while idle between due times, against the same claw with none.
 */
import { join } from "node:path";
import { type Claw, createClaw } from "../src/index.js";
import { percentile, pool, size, tempDir } from "./measure.js";
import { type Row, row } from "./table.js";

const N = size(1000, 200);
const SECONDS = size(8, 4);
const IDLE_MS = size(5000, 2000);
/** Pauses and history reads in flight at once once the measured seconds are over. */
const PARALLEL = 50;

function claw(dir: string, name: string): Claw {
  return createClaw({ db: join(dir, `${name}.db`), project: "bench", log: () => {} });
}

/** Creates N schedules, waits SECONDS seconds, pauses them; the lags of the firings that started. */
async function scheduleLags(
  dir: string,
): Promise<{ lags: number[]; firstDue: number[]; recorded: number; ok: number }> {
  const c = claw(dir, "lag");
  try {
    const ids: string[] = [];
    const firstDue: number[] = [];
    for (let i = 0; i < N; i++) {
      const s = await c.schedule.create({
        when: { every: "1s" },
        action: { out: { bus: `beat-${i % 10}`, payload: i } },
      });
      ids.push(s.scheduleId);
      firstDue.push(Date.parse(s.nextFireAt!));
    }
    const from = Date.now() + 1500; // the first second mixes creation with firing: measured from here
    await new Promise((r) => setTimeout(r, (SECONDS + 1.5) * 1000));
    // Paused side by side: one after another, each pause waited behind the firings of the
    // second it was made in, and on a loaded machine the thousand took over half an hour.
    await pool(PARALLEL, ids.length, (i) => c.schedule.pause({ scheduleId: ids[i]! }));
    await new Promise((r) => setTimeout(r, 500));
    const lags: number[] = [];
    let recorded = 0;
    let ok = 0;
    await pool(PARALLEL, ids.length, async (i) => {
      for (const f of (await c.schedule.firings({ scheduleId: ids[i]!, limit: 1000 })).firings) {
        if (f.firingAt < from) continue;
        recorded++;
        if (f.outcome === "ok") ok++;
        if (f.startedAt !== null) lags.push(f.startedAt - f.firingAt);
      }
    });
    return { lags, firstDue, recorded, ok };
  } finally {
    await c.close();
  }
}

/** N timers due at the same offsets within the second as the schedules, re-armed every second. */
async function timerLags(firstDue: readonly number[]): Promise<number[]> {
  const lags: number[] = [];
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(
    firstDue.map(
      (first) =>
        new Promise<void>((resolve) => {
          let due = first;
          while (due < Date.now()) due += 1000;
          const arm = () =>
            setTimeout(
              () => {
                lags.push(Date.now() - due);
                due += 1000;
                if (due > end) resolve();
                else arm();
              },
              Math.max(0, due - Date.now()),
            );
          arm();
        }),
    ),
  );
  return lags;
}

/** CPU time of this process per wall time over `ms` of an idle claw (percent). */
async function idleCpu(c: Claw, ms: number): Promise<number> {
  await c.ready();
  await new Promise((r) => setTimeout(r, 300));
  const start = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const used = process.cpuUsage(start);
  return ((used.user + used.system) / 1000 / (performance.now() - t0)) * 100;
}

async function idleShare(dir: string): Promise<{ withSchedules: number; without: number }> {
  const none = claw(dir, "idle-none");
  const without = await idleCpu(none, IDLE_MS).finally(() => none.close());
  const busy = claw(dir, "idle-many");
  try {
    for (let i = 0; i < N; i++) await busy.schedule.create({ when: { every: "1h" }, action: { out: { payload: i } } });
    return { withSchedules: await idleCpu(busy, IDLE_MS), without };
  } finally {
    await busy.close();
  }
}

/** The rows. */
export async function run(): Promise<Row[]> {
  const { dir, remove } = tempDir();
  try {
    const s = await scheduleLags(dir);
    const raw = await timerLags(s.firstDue);
    const p99 = percentile(s.lags, 99);
    const rawP99 = Math.max(1, percentile(raw, 99));
    const idle = await idleShare(dir);
    return [
      row({
        scenario: `schedule firing lag p99, ${N} schedules every 1s`,
        unit: "ms",
        tsclaw: p99,
        baseline: rawP99,
        ratioNote: "p99 lag tsclaw ÷ setTimeout (lower is better)",
        target: { op: "<", value: 1000, of: "tsclaw" },
        note: `${s.recorded} due times in ${SECONDS} s, ${s.ok} ok, ${s.recorded - s.lags.length} not started (overlap/held up); p50 ${percentile(s.lags, 50)} ms; raw p50 ${percentile(raw, 50)} ms (baseline floored at 1 ms)`,
      }),
      row({
        scenario: `scheduler CPU while idle, ${N} schedules`,
        unit: "% of a core",
        tsclaw: idle.withSchedules,
        baseline: idle.without,
        ratio: null,
        target: { op: "<=", value: 1, of: "tsclaw" },
        note: `between due times (every 1h), over ${IDLE_MS / 1000} s; baseline: the same claw with no schedule`,
      }),
    ];
  } finally {
    remove();
  }
}
