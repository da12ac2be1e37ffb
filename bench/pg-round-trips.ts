/**
 * Counts the statements (round trips to PostgreSQL) tsclaw makes per operation, by wrapping
 * pg's Client.prototype.query in this process, and prints each operation's count and the
 * statements' first words. Not a scenario (it measures no time): it says what a PostgreSQL row
 * of the bench pays for. Usage: npx tsx bench/pg-round-trips.ts
 */
import pg from "pg";
import { childMessages, pool, spawnBenchScript } from "./measure.js";
import { startPostgres } from "./peers/postgres.js";
import { samplePayload } from "./raw-db.js";
import { checkUntilEnded, modelClaw, postgresStore } from "./stores.js";

const seen: string[] = [];
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === "string" ? args[0] : ((args[0] as { text?: string })?.text ?? "?");
  seen.push(text.replace(/\s+/g, " ").trim().slice(0, 90));
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

/** The statements made while `fn` runs (and 50 ms after, for what it starts without awaiting). */
async function counted(label: string, fn: () => Promise<unknown>, per = 1, inOrder = false): Promise<void> {
  await new Promise((r) => setTimeout(r, 200));
  seen.length = 0;
  await fn();
  await new Promise((r) => setTimeout(r, 50));
  const kinds = new Map<string, number>();
  for (const s of seen) kinds.set(s, (kinds.get(s) ?? 0) + 1);
  process.stdout.write(`\n${label}: ${(seen.length / per).toFixed(2)} statements per operation\n`);
  for (const [s, k] of [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 15))
    process.stdout.write(`  ${(k / per).toFixed(2)}  ${s}\n`);
  if (inOrder) process.stdout.write(`  in order:\n${seen.map((s, i) => `  ${i + 1}. ${s}`).join("\n")}\n`);
}

const server = await startPostgres();
const fake = spawnBenchScript("fake-model.ts");
const { url: fakeUrl } = (await childMessages(fake).next((m) => typeof m.url === "string")) as { url: string };
const { claw, close } = await modelClaw(postgresStore(server), fakeUrl);
try {
  await claw.task
    .run({ prompt: "warm", sessionKey: "warm" })
    .then((t) => claw.task.check({ taskId: t.taskId, waitMs: 10_000 }));
  await counted("out, 1 in flight", () => pool(1, 100, (i) => claw.bus.out({ payload: samplePayload(i) })), 100);
  await counted(
    "out, 1 000 in flight",
    () => pool(1000, 10_000, (i) => claw.bus.out({ payload: samplePayload(i) })),
    10_000,
  );
  await counted("read, page of 1 000", () => claw.bus.read({ after: 0, limit: 1000 }));
  await counted("task_create", () => claw.task.create({ title: "t" }));
  const t = await claw.task.create({ title: "c" });
  await counted("task cancel", () => claw.task.cancel({ taskId: t.taskId }));
  await counted(
    "run_task until in_progress",
    async () => {
      const r = await claw.task.run({ prompt: "go", sessionKey: "s0" });
      let c = await claw.task.check({ taskId: r.taskId, until: "update", afterVersion: r.version, waitMs: 10_000 });
      while (c.task.status === "todo")
        c = await claw.task.check({ taskId: r.taskId, until: "update", afterVersion: c.task.version, waitMs: 10_000 });
    },
    1,
    process.argv.includes("--order"),
  );
  await new Promise((r) => setTimeout(r, 1000));
  await counted(
    "run_task to completed (one session, check_task to the end)",
    async () => {
      const r = await claw.task.run({ prompt: "go", sessionKey: "s1" });
      await checkUntilEnded(claw, r.taskId, 10_000);
    },
    1,
    process.argv.includes("--order"),
  );
} finally {
  await close();
  fake.kill("SIGTERM");
  await server.stop();
}
