/**
 * An orchestrator over HTTP: starts a task with run_task and follows the run contract — call
 * `nextAction` (check_task, which waits server-side) until `continuePolling` is false. Transient
 * failures are retried: the idempotency key makes resending run_task safe, and a poll never
 * creates a second task.
 *
 * Usage: CLAW_URL=http://127.0.0.1:8000 npx tsx examples/orchestrator.ts "Count the TODO lines in src"
 * CLAW_TOKEN is sent as a bearer token when set.
 */
import { randomUUID } from "node:crypto";

const url = (process.env.CLAW_URL || "http://127.0.0.1:8000").replace(/\/+$/, "");
const prompt = process.argv[2] ?? "Count the files in the current directory and report the number";

/** Calls one operation; retries network failures and retryable errors a few times. */
async function call(op: string, args: unknown): Promise<any> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(`${url}/do`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(process.env.CLAW_TOKEN ? { authorization: `Bearer ${process.env.CLAW_TOKEN}` } : {}),
        },
        body: JSON.stringify({ op, args }),
      });
      const body = (await res.json()) as
        | { ok: true; result: any }
        | { ok: false; error: { code: string; message: string; retryable: boolean } };
      if (body.ok) return body.result;
      if (!body.error.retryable || attempt >= 5) throw new Error(`${op}: ${body.error.code}: ${body.error.message}`);
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
      // TypeError: fetch could not connect; the cause says why (ECONNREFUSED: nothing listens there).
      if (attempt >= 3) {
        const c = (err as { cause?: { code?: string; message?: string } }).cause;
        const cause = c?.code ?? c?.message ?? err.message;
        throw new Error(`cannot reach ${url}: ${cause} (start a server with: npx tsclaw serve, or set CLAW_URL)`);
      }
    }
    await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
  }
}

async function main(): Promise<void> {
  const started = await call("run_task", { prompt, idempotencyKey: `orchestrator-${randomUUID()}` });
  console.log(`started ${started.taskId}: ${started.status}`);
  let next = started.nextAction;
  let check: any;
  while (next) {
    check = await call(next.op, next.args);
    console.log(`poll ${check.pollNumber}: ${check.task.status} (${check.task.phase}), waited ${check.waitedMs} ms`);
    if (!check.continuePolling) break;
    next = check.nextAction;
  }
  if (check?.isActionable) console.log(`needs attention; resume with ${JSON.stringify(check.nextAction)}`);
  console.log(
    JSON.stringify({ taskId: started.taskId, status: check?.task.status, summary: check?.task.summary ?? null }),
  );
}

main().catch((err: Error) => {
  console.error(`orchestrator: ${err.message}`); // one line, no stack: the message says what to do
  process.exit(1);
});
