import { createClaw } from "../src/index.js";
const claw = createClaw({ db: ":memory:", project: "b" });
for (let r = 1; r <= 3; r++) {
  for (let i = 0; i < 100_000; i++) {
    const ac = new AbortController();
    await claw.do({ op: "read", args: { bus: "x" } }, { transport: "http", signal: ac.signal });
  }
  (globalThis as any).gc?.();
  console.log(r * 100_000, "calls", (process.memoryUsage().rss / 2 ** 20).toFixed(0), "MiB rss", (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0), "MiB heap");
}
await claw.close();
