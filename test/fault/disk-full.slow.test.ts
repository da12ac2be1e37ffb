/**
 * The disk fills up under `tsclaw serve` (a tiny tmpfs holds the database, then a filler file
 * takes the rest): `out` fails with a clear, retryable storage_unavailable error, the server
 * keeps answering, nothing acknowledged is lost, and once space returns the next `out` succeeds.
 * Needs mount(8) of a tmpfs (root, as on these machines and in CI); skipped with a reason
 * otherwise.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tempDir } from "../helpers/claw.js";
import { readAll, type ServeProcess, startServe } from "./serve-process.js";

const mountPoint = join(tempDir("tsclaw-fault-"), "tiny");
let mounted = false;
let why = "";
try {
  mkdirSync(mountPoint, { recursive: true });
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint], { stdio: "pipe" });
  mounted = true;
} catch (err) {
  why = (err as Error).message.split("\n")[0]!;
}

let server: ServeProcess | undefined;
beforeAll(() => {
  if (!mounted) console.warn(`disk-full test skipped: cannot mount a tmpfs (${why})`);
});
afterAll(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) await server.kill9();
  if (mounted) execFileSync("umount", ["-l", mountPoint]);
});

/** Writes zeros into `path` until the file system says it is full. */
function fillUp(path: string): number {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
  return written;
}

describe.skipIf(!mounted)("disk full", () => {
  test("out fails with storage_unavailable while the disk is full, loses nothing acknowledged, and works again once space returns", async () => {
    const db = join(mountPoint, "claw.db");
    const filler = join(mountPoint, "filler");
    server = await startServe(db);
    const acked = new Map<number, unknown>();
    const out = async (payload: unknown) => {
      const r = await server!.op("out", { bus: "disk", payload });
      if (r.body.ok) acked.set(r.body.result.seq, payload);
      return r;
    };
    for (let i = 0; i < 20; i++) expect((await out({ small: i })).body.ok).toBe(true);

    expect(fillUp(filler)).toBeGreaterThan(0);
    // Big payloads make the WAL grow past whatever room it had.
    let failure: { status: number; body: any } | undefined;
    for (let i = 0; i < 60 && !failure; i++) {
      const r = await out({ big: i, pad: "y".repeat(200_000) });
      if (!r.body.ok) failure = r;
    }
    expect(failure, "out never failed on a full disk").toBeDefined();
    expect(failure!.status).toBe(503);
    expect(failure!.body.error).toMatchObject({ code: "storage_unavailable", retryable: true });
    expect(failure!.body.error.message).toMatch(/storage/i);
    expect(failure!.body.error.details).toMatchObject({ sqlite: expect.stringMatching(/^SQLITE_(FULL|IOERR)/) });
    expect(JSON.stringify(failure!.body)).not.toMatch(/at .*\.ts:\d+/); // no stack on the wire

    // Still serving: health and reads answer while writes cannot.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const duringFull = await readAll(server, "disk");
    for (const [seq, payload] of acked) expect(duringFull.find((e) => e.seq === seq)?.payload).toEqual(payload);

    // Space returns: the very next out succeeds, with the next seq.
    rmSync(filler);
    const lastAcked = Math.max(...acked.keys());
    const again = await out({ after: "space returned" });
    expect(again.body).toMatchObject({ ok: true });
    expect(again.body.result.seq).toBe(lastAcked + 1); // the failed batches used up no seq

    // Nothing acknowledged is lost, seqs contiguous, also after a restart.
    expect(await server.stop()).toBe(0);
    server = await startServe(db);
    const events = await readAll(server, "disk");
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    for (const [seq, payload] of acked) expect(events[seq - 1]!.payload).toEqual(payload);
    expect(events.length).toBe(acked.size);
    expect(await server.stop()).toBe(0);
    server = undefined;
  }, 60_000);
});
