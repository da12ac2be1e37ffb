/**
 * A bash call owns every process it starts: setsid/nohup/double fork/disown are killed at
 * timeout, abort and script exit (unless keepBackground), the call returns whatever holds the
 * pipes, its slot is freed when the client leaves, and after a kill -9 of serve nothing survives
 * the next start. Each case runs without a sandbox and under bwrap.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { memClaw, tempDir } from "../helpers/claw.js";
import { pidsWithArg, uniqueSleep, waitArgGone } from "../helpers/process.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { WAIT } from "../helpers/wait.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function claw(options: Parameters<typeof memClaw>[0]): Claw {
  const c = memClaw(options);
  cleanups.push(() => c.close());
  return c;
}

function killArgs(...args: string[]): void {
  for (const a of args) for (const pid of pidsWithArg(a)) process.kill(pid, "SIGKILL");
}

describe.each(["none", "bwrap"] as const)("bash processes (sandbox %s)", (sandbox) => {
  it("timeout kills a setsid child and returns without waiting for it", async () => {
    const c = claw({ sandbox });
    const [a, b] = [uniqueSleep(), uniqueSleep()];
    const r = await c.bash({ script: `setsid sleep ${a} & sleep ${b}`, timeout: "1s" });
    expect(r).toMatchObject({ timeout: true, sandbox });
    expect(pidsWithArg(a)).toEqual([]);
    expect(pidsWithArg(b)).toEqual([]);
  });

  it("script exit kills nohup, setsid, double-forked and disowned processes", async () => {
    const c = claw({ sandbox, limits: { bashKillGraceMs: 200 } });
    const args = [uniqueSleep(), uniqueSleep(), uniqueSleep(), uniqueSleep()];
    const r = await c.bash({
      script: `nohup sleep ${args[0]} >/dev/null 2>&1 & setsid sleep ${args[1]} & ( (sleep ${args[2]} &) & ); sleep ${args[3]} & disown; echo done`,
    });
    expect(r).toMatchObject({ exitCode: 0, stdout: "done\n", timeout: false });
    for (const a of args) expect(pidsWithArg(a), a).toEqual([]);
  });

  it("script exit SIGKILLs, after the grace, a process that ignores SIGTERM (the checks back off, they do not stop)", async () => {
    const c = claw({ sandbox, limits: { bashKillGraceMs: 300 } });
    const a = uniqueSleep();
    const r = await c.bash({ script: `(trap '' TERM; exec sleep ${a}) & echo done` });
    expect(r).toMatchObject({ exitCode: 0, stdout: "done\n", timeout: false });
    expect(pidsWithArg(a)).toEqual([]);
  });

  it("keepBackground leaves them running until the claw closes", async () => {
    const c = memClaw({ sandbox });
    const a = uniqueSleep();
    cleanups.push(() => killArgs(a));
    const r = await c.bash({ script: `setsid sleep ${a} & echo started`, keepBackground: true });
    expect(r).toMatchObject({ exitCode: 0, stdout: "started\n" });
    expect(pidsWithArg(a).length).toBeGreaterThan(0);
    await c.close();
    expect(await waitArgGone(a)).toBe(true);
  });

  it("returns at its timeout even when a process that escaped the kill holds the pipes", async () => {
    const c = claw({ sandbox, limits: { bashKillGraceMs: 200 } });
    const [a, b] = [uniqueSleep(), uniqueSleep()];
    cleanups.push(() => killArgs(a));
    // env -i drops the marker and setsid leaves the group: only a PID namespace still sees it.
    const r = await c.bash({ script: `env -i setsid sleep ${a} & sleep ${b}`, timeout: "500ms" });
    expect(r.timeout).toBe(true);
    expect(pidsWithArg(b)).toEqual([]);
    if (sandbox === "bwrap") expect(pidsWithArg(a)).toEqual([]);
  });

  it("a client that leaves frees the --max-bash slot and its processes die", async () => {
    const server: TestServer = await startServer(memClaw({ sandbox, limits: { maxBashProcesses: 1 } }));
    cleanups.push(() => server.close());
    const [a, b] = [uniqueSleep(), uniqueSleep()];
    const ac = new AbortController();
    const first = fetch(`${server.url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json", ...server.auth },
      body: JSON.stringify({ op: "bash", args: { script: `setsid sleep ${a} & sleep ${b}` } }),
      signal: ac.signal,
    }).catch(() => undefined);
    await vi.waitFor(() => {
      expect(pidsWithArg(a), a).not.toEqual([]);
      expect(pidsWithArg(b), b).not.toEqual([]);
    }, WAIT);
    ac.abort();
    await first;
    await vi.waitFor(async () => expect((await server.op("bash", { script: "echo free" })).ok).toBe(true), WAIT);
    expect(pidsWithArg(a)).toEqual([]);
    expect(pidsWithArg(b)).toEqual([]);
  });

  it("after kill -9 of serve nothing the call started survives the next start", async () => {
    const db = join(tempDir(), "claw.db");
    const first: ServeProcess = await startServe(db, ["--sandbox", sandbox]);
    const args = [uniqueSleep(), uniqueSleep(), uniqueSleep(), uniqueSleep()];
    cleanups.push(() => killArgs(...args));
    void first
      .op("bash", {
        script: `setsid sleep ${args[0]} & nohup sleep ${args[1]} >/dev/null 2>&1 & ( (sleep ${args[2]} &) & ); sleep ${args[3]}`,
      })
      .catch(() => undefined);
    await vi.waitFor(() => {
      for (const a of args) expect(pidsWithArg(a), a).not.toEqual([]);
    }, WAIT);
    await first.kill9();
    const second = await startServe(db, ["--sandbox", sandbox]);
    cleanups.push(() => second.stop());
    for (const a of args) expect(pidsWithArg(a), a).toEqual([]);
    expect((await second.op("bash", { script: "echo alive" })).body).toMatchObject({
      ok: true,
      result: { stdout: "alive\n", sandbox },
    });
  });
});

describe("sandbox", () => {
  it("under bwrap the server's /proc entries are not visible, while cwd and /tmp are", async () => {
    const db = join(tempDir(), "claw.db");
    const server = await startServe(db, ["--sandbox", "bwrap"], { OPENROUTER_API_KEY: "sk-or-leak-check-417" });
    cleanups.push(() => server.stop());
    const dir = tempDir();
    const r = await server.op("bash", {
      script: `grep -l sk-or-leak-check /proc/[0-9]*/environ 2>/dev/null | wc -l; test -e /proc/${server.pid}/environ && echo visible; pwd; touch /tmp/tsclaw-sandbox-probe && echo tmp-ok`,
      cwd: dir,
    });
    expect(r.body).toMatchObject({ ok: true, result: { sandbox: "bwrap" } });
    expect(r.body.result.stdout).toBe(`0\n${dir}\ntmp-ok\n`);
  });

  it("landlock is refused as unavailable, and an unknown mode is refused", () => {
    expect(() => memClaw({ sandbox: "landlock" })).toThrow(/landlock is not available/);
    expect(() => memClaw({ env: { ...process.env, CLAW_SANDBOX: "jail" } })).toThrow(/CLAW_SANDBOX/);
  });
});
