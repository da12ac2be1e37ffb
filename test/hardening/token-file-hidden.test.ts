/**
 * The server's token file is out of a script's reach under the bwrap sandbox: a `bash` call (or
 * an agent run's bash) that `cat`s it, directly or through a symlink, reads an empty file, while
 * the rest of the filesystem stays as it was. `tsclaw serve` names its token file itself. Without
 * a sandbox a script runs as the server's user and can read it: serve says so at startup.
 */
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveSandbox } from "../../src/bash/sandbox.js";
import type { Claw } from "../../src/index.js";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { memClaw, tempDir } from "../helpers/claw.js";

let claw: Claw | undefined;
let server: ServeProcess | undefined;
afterEach(async () => {
  await claw?.close();
  if (server?.child.exitCode === null) await server.stop();
  claw = server = undefined;
});

const bwrap = (() => {
  try {
    return resolveSandbox("bwrap") === "bwrap";
  } catch {
    return false;
  }
})();

describe.runIf(bwrap)("the token file under the bwrap sandbox", () => {
  it("a script reads the token file (or a symlink to it) as empty; other files as they are", async () => {
    const dir = tempDir();
    const secret = join(dir, "claw.db.token");
    const plain = join(dir, "notes.txt");
    writeFileSync(secret, "the-server-token\n", { mode: 0o600 });
    writeFileSync(plain, "not a secret\n");
    symlinkSync(secret, join(dir, "link"));
    claw = memClaw({ sandbox: "bwrap" });
    claw.serveAs({ secretFiles: [secret, join(dir, "missing.token")] });
    const r = await claw.bash({ script: `cat ${secret}; echo "[$(cat ${dir}/link)]"; cat ${plain}` });
    expect(r.sandbox).toBe("bwrap");
    expect(r.stdout).toBe("[]\nnot a secret\n");
    expect(r.stdout + r.stderr).not.toContain("the-server-token");
  });

  it("tsclaw serve hides its generated <db>.token from bash calls", async () => {
    const db = join(tempDir(), "claw.db");
    server = await startServe(db, ["--sandbox", "bwrap"]);
    const r = await server.op("bash", { script: `cat ${db}.token; echo "[$(head -c 64 ${db}.token)]"; ls ${db}` });
    expect(r.status).toBe(200);
    expect(r.body.result.sandbox).toBe("bwrap");
    expect(r.body.result.stdout).toBe(`[]\n${db}\n`); // an empty (or unreadable) file; the rest as is
    expect(JSON.stringify(r.body)).not.toContain(server.token);
  }, 60_000);
});

describe("the token file without a sandbox", () => {
  it("serve warns that scripts can read it, and how to avoid that", async () => {
    const db = join(tempDir(), "claw.db");
    server = await startServe(db, ["--sandbox", "none"]);
    expect(server.stderr()).toContain(
      `bash runs without a sandbox: its scripts run as this user and can read ${db}.token`,
    );
  }, 60_000);
});
