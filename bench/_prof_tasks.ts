import { createClaw } from "../src/index.js";
import { childMessages, pool, spawnBenchScript } from "./measure.js";
const fakeChild = spawnBenchScript("fake-model.ts");
const { url } = await childMessages(fakeChild).next((m) => typeof m.url === "string");
const claw = createClaw({ db: "/tmp/prof/tasks.db", project: "b", baseURL: url, env: { ...process.env, OPENROUTER_API_KEY: "x" } });
for (let r = 0; r < 3; r++) {
  const t0 = performance.now();
  await pool(20, 20, async (s) => {
    for (let i = 0; i < 10; i++) {
      const t = await claw.task.run({ prompt: `task ${i}`, sessionKey: `s${s}` });
      let c = await claw.task.check({ taskId: t.taskId, waitMs: 60_000 });
      while (!c.isTerminal) c = await claw.task.check({ taskId: t.taskId, waitMs: 60_000 });
    }
  });
  console.error(r, (200 / (performance.now() - t0) * 1000).toFixed(1), "tasks/s");
}
await claw.close(); fakeChild.kill();
