/**
 * A load generator in its own process: `concurrency` keep-alive clients POST `total` JSON bodies
 * to a URL as fast as answers come back. Prints one JSON line:
 * {ok, errors, ms, p50, p99} (latencies in ms).
 * With BENCH_TOKEN set, every request carries it as `Authorization: Bearer …`.
 * Usage: node --import tsx bench/http-load.ts <url> <total> <concurrency>
 */
import { Agent, request } from "node:http";
import { percentile } from "./measure.js";
import { samplePayload } from "./raw-db.js";

const [url, totalArg, concArg] = process.argv.slice(2);
const total = Number(totalArg);
const concurrency = Number(concArg);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL(url!);
const auth: Record<string, string> = process.env.BENCH_TOKEN
  ? { authorization: `Bearer ${process.env.BENCH_TOKEN}` }
  : {};

function post(i: number): Promise<number> {
  const body = JSON.stringify({ op: "out", args: { payload: samplePayload(i) }, id: i });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...auth },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let next = 0;
let ok = 0;
let errors = 0;
const latencies: number[] = [];
const t0 = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const i = next++;
      const s = performance.now();
      try {
        const status = await post(i);
        if (status === 200) ok++;
        else errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - s);
    }
  }),
);
const ms = performance.now() - t0;
process.stdout.write(
  `${JSON.stringify({ ok, errors, ms, p50: percentile(latencies, 50), p99: percentile(latencies, 99) })}\n`,
);
agent.destroy();
