/**
 * A load generator in its own process: `concurrency` keep-alive clients POST `total` JSON bodies
 * to a URL as fast as answers come back. Prints one JSON line per pass:
 * {ok, errors, ms, p50, p99} (latencies in ms).
 * Each further `<url> <total>` pair is one more pass, run a pause after the one before through the
 * same clients: a pass then neither pays for a cold process nor opens its connections.
 * With BENCH_TOKEN set, every request carries it as `Authorization: Bearer …`.
 * Usage: node --import tsx bench/http-load.ts <url> <total> <concurrency> [<url> <total>]…
 */
import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { percentile, size } from "./measure.js";
import { samplePayload } from "./raw-db.js";

const [firstUrl, firstTotal, concArg, ...more] = process.argv.slice(2);
const concurrency = Number(concArg);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const auth: Record<string, string> = process.env.BENCH_TOKEN
  ? { authorization: `Bearer ${process.env.BENCH_TOKEN}` }
  : {};

function post(target: URL, i: number): Promise<number> {
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

/** One pass: `total` requests to `url` from `concurrency` clients; prints its JSON line. */
async function pass(url: string, total: number): Promise<void> {
  const target = new URL(url);
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
          const status = await post(target, i);
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
}

// A pass leaves work behind in the server it loaded: without a pause, an echo pass right after a
// tsclaw pass (one process serves both) ran 10–30 % slower than one after an echo pass. The pause
// lets that work end outside the next pass's window (none in smoke runs: their figures mean nothing).
const PAUSE_MS = size(1000, 0);

const passes = [firstUrl!, firstTotal!, ...more];
for (let k = 0; k < passes.length; k += 2) {
  if (k > 0) await sleep(PAUSE_MS);
  await pass(passes[k]!, Number(passes[k + 1]));
}
agent.destroy();
