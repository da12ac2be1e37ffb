/**
 * SIGBUS from `-shm`: another process truncating, filling or replacing
 * `<db>-shm` under a running serve. SQLite used to map that file for its WAL index, so the next
 * commit after a `truncate -s 0` faulted and the process died with SIGBUS. Now the index lives
 * in the server's memory (exclusive locking mode): the server keeps running, every write stays
 * acknowledged and durable across a kill -9, and /health stays 200.
 */
import { execFileSync } from "node:child_process";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { tempDir } from "../helpers/claw.js";
import { readAll, type ServeProcess, startServe } from "./serve-process.js";

let server: ServeProcess | undefined;
afterEach(async () => {
  if (server?.child.exitCode === null && server.child.signalCode === null) await server.stop();
  server = undefined;
});

test("truncating, filling, replacing and deleting <db>-shm under serve: no crash, writes kept", async () => {
  const dir = tempDir("tsclaw-shm-");
  const db = join(dir, "claw.db");
  const shm = `${db}-shm`;
  server = await startServe(db);
  let acked = 0;
  const outs = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const r = await server!.op("out", { bus: "shm", payload: acked });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.result.seq).toBe(++acked);
    }
  };
  await outs(20);
  const tamper: [string, () => void][] = [
    ["truncate -s 0", () => execFileSync("truncate", ["-s", "0", shm])],
    ["filled with 0xff", () => writeFileSync(shm, Buffer.alloc(64 * 1024, 0xff))],
    [
      "replaced by another file",
      () => {
        writeFileSync(join(dir, "other-shm"), Buffer.alloc(32 * 1024, 1));
        renameSync(join(dir, "other-shm"), shm);
      },
    ],
    ["truncate -s 0 again", () => execFileSync("truncate", ["-s", "0", shm])],
    ["deleted", () => rmSync(shm, { force: true })],
  ];
  for (const [how, act] of tamper) {
    act();
    await outs(50);
    expect(server.child.signalCode, how).toBeNull();
    expect(server.child.exitCode, how).toBeNull();
    const health = await fetch(`${server.url}/health`);
    expect(health.status, how).toBe(200);
  }
  const seqs = (await readAll(server, "shm")).map((e) => e.seq);
  expect(seqs).toEqual(Array.from({ length: acked }, (_, i) => i + 1));

  // Durable: every acknowledged event is there after a kill -9 and a restart on the same file.
  await server.kill9();
  server = await startServe(db);
  const again = await readAll(server, "shm");
  expect(again.map((e) => e.payload)).toEqual(Array.from({ length: acked }, (_, i) => i));
  expect((await server.op("out", { bus: "shm", payload: "next" })).body.result.seq).toBe(acked + 1);
}, 60_000);
