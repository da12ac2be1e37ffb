/**
 * A call refused before it runs (its storage is gone) leaves nothing behind: its callId is not
 * kept as a call in flight, so `cancel_call` finds nothing and the id does not pile up.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test, vi } from "vitest";
import { createClaw } from "../../src/index.js";
import { tempDir } from "../helpers/claw.js";

test("a call refused with storage_unavailable before it runs does not stay registered under its callId", async () => {
  const db = join(tempDir("tsclaw-refused-"), "claw.db");
  const claw = createClaw({ db, project: "refused", env: {} });
  try {
    await claw.ready();
    await claw.bus.out({ payload: "before" });
    for (const f of ["", "-wal", "-shm"]) rmSync(db + f, { force: true });
    // The guard's timer notices within a moment; until then a commit's own check refuses.
    await vi.waitFor(
      () => expect(claw.bus.out({ payload: "after" })).rejects.toMatchObject({ code: "storage_unavailable" }),
      { timeout: 5000, interval: 20 },
    );
    const callId = "c_refused_0123456789";
    await expect(claw.call("out", { payload: 1 }, { callId })).rejects.toMatchObject({ code: "storage_unavailable" });
    expect(await claw.call("cancel_call", { callId })).toEqual({ cancelled: false });
  } finally {
    await claw.close();
  }
});
