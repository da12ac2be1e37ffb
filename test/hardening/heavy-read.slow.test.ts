/**
 * Reading a bus of large events (150 × 1 MiB) over every transport of a real `tsclaw serve`
 * (and `tsclaw stdio`) child: every event arrives intact and in order, and the server's peak
 * RSS (VmHWM) rises by less than 64 MiB, because pages are bounded in bytes (4 MiB) and no
 * page is ever joined into one string.
 */

import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { JsonLinesSplitter } from "../../adapters/jsonl.js";
import { spawnCli } from "../adapters/cli-run.js";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";
import { fillHeavy, openWs, peakRss, readPages, readSse, type Seen } from "./heavy-bus.js";

const COUNT = 150;
const BUDGET = 64 * 1024 * 1024;
const all = Array.from({ length: COUNT }, (_, i) => i + 1);

/** Fails instead of hanging when the child dies under the load (what this test catches). */
function orDeath<T>(work: Promise<T>, exited: Promise<number | null>, stderr: () => string): Promise<T> {
  return Promise.race([
    work,
    exited.then((code) => {
      throw new Error(`the child exited (${code}) while reading; stderr:\n${stderr().slice(-2000)}`);
    }),
  ]);
}

let dir: string;
let db: string;
beforeAll(async () => {
  dir = tempDir("tsclaw-heavy-");
  db = join(dir, "claw.db");
  await fillHeavy(db, "heavy", COUNT);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("reading 150 × 1 MiB events", () => {
  let server: ServeProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("over SSE, WebSocket read and subscribe, and HTTP read: all intact, server VmHWM +<64 MiB", async () => {
    server = await startServe(db);
    expect((await server.op("read", { bus: "heavy", after: 0, limit: 1 })).status).toBe(200); // warm
    const before = peakRss(server.pid);

    const s = server;
    const sse = await orDeath(readSse(s.url, "heavy", COUNT, s.auth), s.exited, s.stderr);
    const client = await openWs(server.url, server.auth);
    const wsRead = await orDeath(readPages(client.request, "heavy"), s.exited, s.stderr);
    const wsSub: Seen = { seqs: [], intact: true };
    const gotAll = new Promise<void>((resolve) =>
      client.onEvent((f) => {
        wsSub.seqs.push(f.seq);
        if (f.seq === COUNT) resolve();
      }),
    );
    const sub = await client.request("subscribe", { bus: "heavy", after: 0 });
    expect(sub.ok).toBe(true);
    await orDeath(gotAll, s.exited, s.stderr);
    client.ws.close();
    const httpRead = await orDeath(
      readPages(async (op, args) => (await s.op(op, args)).body, "heavy"),
      s.exited,
      s.stderr,
    );

    for (const seen of [sse, wsRead, httpRead]) {
      expect(seen.seqs).toEqual(all);
      expect(seen.intact).toBe(true);
    }
    expect(wsSub.seqs).toEqual(all);
    const grew = peakRss(server.pid) - before;
    process.stderr.write(`heavy read: serve VmHWM grew ${(grew / 1048576).toFixed(1)} MiB\n`);
    expect(grew).toBeLessThan(BUDGET);
    expect(server.child.exitCode).toBeNull();
    expect(await server.stop()).toBe(0);
    server = undefined;
  }, 120_000);

  it("over stdio read and subscribe: all intact, VmHWM +<64 MiB", async () => {
    const child = await spawnCli(["stdio", "--db", db, "--project", "heavy"]);
    child.stdout!.removeAllListeners("data");
    const waiting = new Map<number, (r: any) => void>();
    const subSeqs: number[] = [];
    let subDone: () => void = () => {};
    const splitter = new JsonLinesSplitter(
      {
        line: (text) => {
          const f = JSON.parse(text);
          if (f.event === "bus") {
            subSeqs.push(f.seq);
            if (f.seq === COUNT) subDone();
          } else waiting.get(f.id)?.(f);
        },
        oversize: () => {
          throw new Error("oversized line");
        },
      },
      64 * 1024 * 1024,
    );
    child.stdout!.on("data", (c: Buffer) => splitter.push(c));
    let id = 0;
    const request = (op: string, args: unknown) =>
      new Promise<any>((resolve) => {
        const n = ++id;
        waiting.set(n, resolve);
        child.stdin!.write(`${JSON.stringify({ op, args, id: n })}\n`);
      });
    const warm = await orDeath(request("read", { bus: "heavy", after: 0, limit: 1 }), child.exited, child.err);
    expect(warm.ok).toBe(true);
    const before = peakRss(child.pid!);
    const read = await orDeath(readPages(request, "heavy"), child.exited, child.err);
    const subscribed = new Promise<void>((r) => (subDone = r));
    expect((await request("subscribe", { bus: "heavy", after: 0 })).ok).toBe(true);
    await orDeath(subscribed, child.exited, child.err);
    const grew = peakRss(child.pid!) - before;
    child.stdin!.end();
    expect(await child.exited).toBe(0);
    expect(read.seqs).toEqual(all);
    expect(read.intact).toBe(true);
    expect(subSeqs).toEqual(all);
    process.stderr.write(`heavy read: stdio VmHWM grew ${(grew / 1048576).toFixed(1)} MiB\n`);
    expect(grew).toBeLessThan(BUDGET);
  }, 120_000);
});
