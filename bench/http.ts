/**
 * `out` through POST /do from 50 concurrent keep-alive clients (a separate process) vs a bare
 * node:http server that parses the same JSON body and echoes it back, both served from this
 * process and loaded in the same run.
 */

import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { listenHttp } from "../adapters/http.js";
import { createAccessPolicy } from "../adapters/security.js";
import { createClaw } from "../src/index.js";
import { SMOKE, size, spawnBenchScript, tempDir, waitForMessage } from "./measure.js";
import { type Row, row } from "./table.js";

const CONCURRENCY = 50;

interface LoadResult {
  ok: number;
  errors: number;
  ms: number;
  p50: number;
  p99: number;
}

// Every peer sends a token, as a real client of a served claw must; the echo server ignores it.
const TOKEN = randomBytes(24).toString("base64url");

async function load(url: string, total: number): Promise<LoadResult> {
  const child = spawnBenchScript("http-load.ts", [url, String(total), String(CONCURRENCY)], { BENCH_TOKEN: TOKEN });
  const result = (await waitForMessage(child, (m) => typeof m.ms === "number")) as LoadResult;
  if (result.errors > 0) throw new Error(`load against ${url}: ${result.errors} failed requests`);
  return result;
}

function listenEcho(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/do` }),
    ),
  );
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const total = size(30_000, 3_000);
  const tmp = tempDir();
  const claw = createClaw({ db: join(tmp.dir, "claw.db"), project: "bench" });
  const http = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy: createAccessPolicy({ token: TOKEN }) });
  const echo = await listenEcho();
  try {
    const warm = size(2000, 300);
    await load(`${http.url}/do`, warm); // warm-up both
    await load(echo.url, warm);
    // Alternate, keep each side's best: the two cores are shared with the load process.
    let ts: LoadResult | undefined;
    let raw: LoadResult | undefined;
    for (let i = 0; i < (SMOKE ? 1 : 2); i++) {
      const first = i % 2 === 0 ? `${http.url}/do` : echo.url; // neither side always goes first
      const r1 = await load(first, total);
      const r2 = await load(first === echo.url ? `${http.url}/do` : echo.url, total);
      const [a, b] = first === echo.url ? [r2, r1] : [r1, r2];
      if (!ts || a.ms < ts.ms) ts = a;
      if (!raw || b.ms < raw.ms) raw = b;
    }
    return [
      row({
        scenario: "POST /do out, 50 keep-alive clients",
        unit: "req/s",
        tsclaw: (total / ts!.ms) * 1000,
        baseline: (total / raw!.ms) * 1000,
        target: { op: ">=", value: 0.9 },
        note: `${total} requests; p99 latency tsclaw ${ts!.p99.toFixed(1)} ms vs bare node:http echo ${raw!.p99.toFixed(1)} ms; load from a separate process`,
      }),
    ];
  } finally {
    echo.server.close();
    echo.server.closeAllConnections();
    await http.close();
    await claw.close();
    tmp.remove();
  }
}
