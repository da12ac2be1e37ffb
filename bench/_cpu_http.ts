import { listenHttp } from "../adapters/http.js";
import { createClaw } from "../src/index.js";
import { spawnBenchScript, waitForMessage } from "./measure.js";
import { rmSync } from "node:fs";
rmSync("/tmp/prof/cpuhttp.db", { force: true }); rmSync("/tmp/prof/cpuhttp.db-wal", { force: true }); rmSync("/tmp/prof/cpuhttp.db-shm", { force: true });
const claw = createClaw({ db: "/tmp/prof/cpuhttp.db", project: "b" });
const http = await listenHttp(claw, { host: "127.0.0.1", port: 0 });
const res: number[] = [];
for (let r = 0; r < 4; r++) {
  const child = spawnBenchScript("http-load.ts", [`${http.url}/do`, "20000", "50"]);
  const c0 = process.cpuUsage();
  await waitForMessage(child, (x) => typeof x.ms === "number");
  const c = process.cpuUsage(c0);
  if (r > 0) res.push((c.user + c.system) / 20000);
}
console.log(process.cwd(), "server CPU µs/request", res.map((x) => x.toFixed(1)).join(" "));
await http.close(); await claw.close();
