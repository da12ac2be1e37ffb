import { createClaw } from "../src/index.js";
const claw = createClaw({ db: "/tmp/prof/seq.db" , project: "b"});
for (let i = 0; i < 6; i++) {
  const t0 = performance.now();
  await claw.bash({ script: "seq 1 100000", stdoutLineEvent: { template: { line: "{payload}" }, bus: "b" + i } });
  console.error(i, performance.now() - t0);
}
await claw.close();
