import { createClaw } from "../src/index.js";
import { answer, startFakeResponses } from "../test/fixtures/fake-responses.js";
const fake = await startFakeResponses();
fake.setDefault(answer("done"));
const claw = createClaw({ db: ":memory:", project: "b", baseURL: fake.url, env: { ...process.env, OPENROUTER_API_KEY: "x" } });
let arrivals: number[] = [];
const orig = fake.requests.push.bind(fake.requests);
(fake.requests as any).push = (...a: any[]) => { arrivals.push(performance.now()); return orig(...a); };
for (let i = 0; i < 8; i++) {
  arrivals = [];
  const t0 = performance.now();
  const t = await claw.task.run({ prompt: `p${i}`, sessionKey: "s" });
  const t1 = performance.now();
  const c = await claw.task.check({ taskId: t.taskId, waitMs: 60000 });
  const t2 = performance.now();
  console.log(`run_task ${(t1 - t0).toFixed(1)} ms, model request at +${((arrivals[0] ?? NaN) - t0).toFixed(1)} ms, terminal at +${(t2 - t0).toFixed(1)} ms, ${c.task.status} (requests ${arrivals.length})`);
}
await claw.close(); await fake.close();
