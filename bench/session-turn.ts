/**
 * Long sessions: the cost of one agent turn (a prompt the fake model answers at once, in its own
 * process) in a session holding 1 000 stored messages against one holding 10. Measured as this
 * process's CPU time per turn (tsclaw's own work: storage, history, the request it builds and
 * the events it publishes; the model's process is not counted) and the SQLite statements it
 * makes. Each measured turn gets a freshly seeded session (so both sides hold their size) that
 * has run once on this node before, as a long-lived session has.
 */
import Database from "better-sqlite3";
import type { Claw } from "../src/index.js";
import { checkpointNow } from "../src/store/checkpointer.js";
import type { SqliteSql } from "../src/store/sqlite-sql.js";
import { childMessages, gc, sidesInTurn, size, spawnBenchScript } from "./measure.js";
import { modelClaw, SQLITE } from "./stores.js";
import { type Row, row } from "./table.js";

const LARGE = 1000;
const SMALL = 10;
const TURNS = size(60, 5);
const WARMUP = size(20, 2);

// Every statement better-sqlite3 runs in this process, counted where they all pass.
let statements = 0;
function countStatements(): void {
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  for (const name of ["run", "get", "all", "iterate"]) {
    const original = proto[name]!;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      statements++;
      return original.apply(this, args);
    };
  }
}

/** Text a chatty session's messages could hold (a few hundred characters each). */
const filler = (i: number) => `message ${i}: ${"the quick brown fox jumps over the lazy dog. ".repeat(6)}`;

/** A new session holding `n` stored messages: user and assistant turns, with a bash call every fourth. */
async function seeded(claw: Claw, n: number, k: number): Promise<string> {
  const s = await claw.session.start({ sessionKey: `s${n}-${k}`, bus: `b${n}-${k}` });
  const { store } = claw.services.sessions;
  await store.sql.tx(async (q) => {
    for (let i = 0; i < n; i++) {
      const turn = i % 4;
      if (turn === 0) await store.append(s.sessionId, { runId: null, role: "user", text: filler(i) }, q);
      else if (turn === 1) {
        const callId = `call_${k}_${i}`;
        const args = JSON.stringify({ script: `echo ${i}` });
        const item = {
          type: "function_call",
          id: `fc_${k}_${i}`,
          call_id: callId,
          name: "bash",
          arguments: args,
          status: "completed",
        };
        await store.append(
          s.sessionId,
          { runId: null, role: "tool_call", callId, name: "bash", args: { script: `echo ${i}` }, item },
          q,
        );
      } else if (turn === 2) {
        const result = { stdout: `${i}\n`, stderr: "", exitCode: 0, timeout: false };
        await store.append(
          s.sessionId,
          { runId: null, role: "tool_result", callId: `call_${k}_${i - 1}`, name: "bash", result, isError: false },
          q,
        );
      } else {
        const text = filler(i);
        const item = {
          type: "message",
          id: `msg_${k}_${i}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text, annotations: [] }],
        };
        await store.append(s.sessionId, { runId: null, role: "assistant", text, item }, q);
      }
    }
  });
  return s.sessionId;
}

/** One turn in a fresh session of `n` messages: CPU milliseconds and statements of this process. */
async function turn(claw: Claw, n: number, k: number): Promise<{ cpuMs: number; statements: number }> {
  const sessionId = await seeded(claw, n, k);
  // The session has run here before, as a long-lived session has (its context is kept between runs).
  await claw.session.prompt({ sessionId, message: "hello" });
  // The seeding's pages copied into the database now, as the claw's checkpointer copies them: a
  // timer's checkpoint would otherwise copy them during the measured turn, whose cost would then
  // grow with the seeding, not the turn.
  const sql = claw.services.sessions.store.sql as unknown as SqliteSql;
  await sql.beforeNextWork(() => checkpointNow(sql.db));
  gc();
  // A forced collection leaves its sweeping to V8's helper threads, whose CPU this process's
  // figure counts: with 1 000-message sessions seeded the heap is large, and without a pause
  // the sweep of the bench's own garbage fell into the measured turn (ratio 1.5–2.5 instead of
  // ~1.3 on the same code).
  await new Promise((r) => setTimeout(r, 50));
  const before = statements;
  const cpu = process.cpuUsage();
  const r = await claw.session.prompt({ sessionId, message: "go on" });
  const used = process.cpuUsage(cpu);
  if (r.status !== "completed") throw new Error(`turn ended ${r.status}`);
  return { cpuMs: (used.user + used.system) / 1000, statements: statements - before };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The row: a turn at 1 000 messages ÷ a turn at 10 (CPU time, lower is better). */
export async function run(): Promise<Row[]> {
  countStatements();
  const fake = spawnBenchScript("fake-model.ts");
  const { url } = (await childMessages(fake).next((m) => typeof m.url === "string")) as { url: string };
  const { claw, close } = await modelClaw(SQLITE, url);
  try {
    for (let i = 0; i < WARMUP; i++)
      await sidesInTurn(
        i,
        () => turn(claw, LARGE, -i - 1),
        () => turn(claw, SMALL, -i - 1),
      );
    const large: Array<{ cpuMs: number; statements: number }> = [];
    const small: Array<{ cpuMs: number; statements: number }> = [];
    for (let i = 0; i < TURNS; i++) {
      const [a, b] = await sidesInTurn(
        i,
        () => turn(claw, LARGE, i),
        () => turn(claw, SMALL, i),
      );
      large.push(a);
      small.push(b);
    }
    const cpuLarge = median(large.map((t) => t.cpuMs));
    const cpuSmall = median(small.map((t) => t.cpuMs));
    return [
      row({
        scenario: "session turn at 1 000 messages vs 10 messages",
        unit: "ms CPU",
        tsclaw: cpuLarge,
        baseline: cpuSmall,
        target: { op: "<=", value: 1.2 },
        ratioNote: "time at 1 000 ÷ time at 10 (lower is better)",
        note: `median of ${TURNS} turns each, interleaved, each in a fresh seeded session after one unmeasured turn; statements per turn ${median(large.map((t) => t.statements))} vs ${median(small.map((t) => t.statements))}; fake model in its own process, answering at once`,
      }),
    ];
  } finally {
    await close();
    fake.kill("SIGTERM");
  }
}
