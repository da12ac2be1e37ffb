/**
 * Deleting or replacing the database files under a running serve: detected within a second,
 * no write acknowledged after that (`storage_unavailable`, 503, retryable), `/health` answers
 * 503 with the same error, and the process keeps running to say so.
 */
import { copyFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { tempDir } from "../helpers/claw.js";
import { type ServeProcess, startServe } from "./serve-process.js";

let server: ServeProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** Polls `out` until it is refused; returns the refusal and how many outs were acknowledged meanwhile. */
async function outUntilRefused(s: ServeProcess): Promise<{ refused: { status: number; body: any }; acked: number }> {
  let acked = 0;
  const end = Date.now() + 5000;
  for (;;) {
    const r = await s.op("out", { bus: "after", payload: acked });
    if (r.status !== 200 || Date.now() > end) return { refused: r, acked };
    acked++;
  }
}

async function health(s: ServeProcess): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/health`);
  return { status: res.status, body: await res.json() };
}

for (const how of ["deleted", "replaced"] as const) {
  test(`database files ${how} while serving: writes refused, /health 503, process alive`, async () => {
    const dir = tempDir("tsclaw-gone-");
    const db = join(dir, "claw.db");
    server = await startServe(db);
    expect((await server.op("out", { payload: "before" })).status).toBe(200);
    expect((await health(server)).status).toBe(200);
    if (how === "deleted") for (const f of ["", "-wal", "-shm"]) rmSync(db + f, { force: true });
    else {
      copyFileSync(db, join(dir, "copy.db"));
      renameSync(join(dir, "copy.db"), db); // same name, another file
    }
    const t0 = Date.now();
    const { refused, acked } = await outUntilRefused(server);
    const detectedMs = Date.now() - t0;
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ ok: false, error: { code: "storage_unavailable", retryable: true } });
    process.stderr.write(`deleted db (${how}): refused after ${detectedMs} ms, ${acked} outs acknowledged before\n`);
    expect(detectedMs).toBeLessThan(5000); // polled above; the guard's period is 200 ms
    // Once refused, always refused, and /health says why.
    expect((await server.op("out", { payload: "later" })).body.error.code).toBe("storage_unavailable");
    expect((await server.op("task_create", { title: "x" })).body.error.code).toBe("storage_unavailable");
    const h = await health(server);
    expect(h.status).toBe(503);
    expect(h.body).toMatchObject({ ok: false, error: { code: "storage_unavailable" } });
    expect(server.child.exitCode).toBeNull();
  });
}
