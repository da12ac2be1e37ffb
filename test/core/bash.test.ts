import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compileTemplate, fillTemplate } from "../../src/bash/template.js";
import { parseGoDuration } from "../../src/core/duration.js";
import type { Claw } from "../../src/index.js";
import { apiClaw, memClaw, tempDir } from "../helpers/claw.js";
import { pidsWithArg, uniqueSleep, waitArgGone } from "../helpers/process.js";
import { WAIT } from "../helpers/wait.js";

let claw: Claw;
afterEach(async () => {
  await claw?.close();
});

describe("bash", () => {
  it("returns stdout, stderr and the exit code", async () => {
    claw = await apiClaw();
    expect(await claw.bash({ script: "echo out; echo err >&2; exit 3" })).toEqual({
      stdout: "out\n",
      stderr: "err\n",
      exitCode: 3,
      timeout: false,
      sandbox: claw.services.bash.sandbox,
    });
  });

  it("kills the whole process group at a Go-duration timeout, grandchild included", async () => {
    claw = await apiClaw();
    const arg = uniqueSleep();
    const r = await claw.bash({ script: `(sleep ${arg} &) ; sleep ${arg}`, timeout: "700ms" });
    expect(r.timeout).toBe(true);
    expect(await waitArgGone(arg)).toBe(true);
  });

  it("accepts numeric and Go-duration timeouts and rejects invalid ones", async () => {
    claw = await apiClaw();
    expect((await claw.bash({ script: "sleep 5", timeout: 0.3 })).timeout).toBe(true);
    expect((await claw.bash({ script: "true", timeout: "1h30m" })).timeout).toBe(false);
    for (const timeout of ["soon", "5 parsecs", -1, "-2s", 0]) {
      const env = await claw.do({ op: "bash", args: { script: "true", timeout } });
      expect(env).toMatchObject({
        ok: false,
        error: { code: "invalid_args", details: { issues: [{ path: "timeout" }] } },
      });
    }
  });

  it("publishes 20 000 stdout lines as 20 000 events, all readable when the result returns", async () => {
    claw = await apiClaw();
    const r = await claw.bash({
      script: "seq 1 20000",
      stdoutLineEvent: { template: { n: "{payload}" }, bus: "lines" },
    });
    expect(r.exitCode).toBe(0);
    const { buses } = await claw.bus.list();
    expect(buses.find((b) => b.bus === "lines")).toMatchObject({ count: 20000, lastSeq: 20000 });
    const last = await claw.bus.read({ bus: "lines", after: 19999 });
    expect(last.events[0]!.payload).toEqual({ n: "20000" });
  });

  it("substitutes templates in nested objects, arrays and inside longer strings", async () => {
    claw = await apiClaw();
    await claw.bash({
      script: "printf 'one\\r\\ntwo'; echo warn >&2; exit 7",
      stdoutLineEvent: {
        template: { a: { b: ["{payload}", { c: "line={payload}!" }] }, keep: 1, none: null },
        bus: "tpl",
      },
      stderrLineEvent: { template: ["err", "{payload}"], bus: "tpl" },
      exitEvent: { template: { code: "{payload}", text: "exit {payload}" }, bus: "tpl" },
      timeoutEvent: { template: { timedOut: "{payload}" }, bus: "tpl" },
    });
    const payloads = (await claw.bus.read({ bus: "tpl" })).events.map((e) => e.payload);
    expect(payloads).toContainEqual({ a: { b: ["one", { c: "line=one!" }] }, keep: 1, none: null });
    expect(payloads).toContainEqual({ a: { b: ["two", { c: "line=two!" }] }, keep: 1, none: null });
    expect(payloads).toContainEqual(["err", "warn"]);
    // exit and timeout events are typed and come last, in that order
    expect(payloads.slice(-2)).toEqual([{ code: 7, text: "exit 7" }, { timedOut: false }]);
  });

  it("publishes a true timeout event when killed", async () => {
    claw = await apiClaw();
    await claw.bash({
      script: "sleep 10",
      timeout: "200ms",
      timeoutEvent: { template: "{payload}" },
      exitEvent: { template: "{payload}" },
    });
    const payloads = (await claw.bus.read({})).events.map((e) => e.payload);
    expect(payloads[1]).toBe(true);
    expect(typeof payloads[0]).toBe("number");
  });

  it("compiled templates match the reference substitution", () => {
    const cases: unknown[] = [
      { a: "{payload}" },
      ["{payload}", "x{payload}y{payload}"],
      "{payload}",
      5,
      null,
      { "{payload}": "k" },
      { q: 'he said "{payload}"' },
    ];
    for (const t of cases) {
      for (const v of ['li"ne\\ \u2028 🎉', 42, true]) {
        expect(JSON.parse(compileTemplate(t).render(v))).toEqual(fillTemplate(t, v));
      }
    }
  });

  it("parses Go durations", () => {
    expect(parseGoDuration("1.5s")).toBe(1500);
    expect(parseGoDuration("2m")).toBe(120_000);
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("300ms")).toBe(300);
    expect(parseGoDuration("1h")).toBe(3_600_000);
    expect(parseGoDuration("abc")).toBeUndefined();
  });

  it("caps captured output to its tail and says so", async () => {
    claw = await apiClaw({ limits: { bashOutputBytes: 1000 } });
    const r = await claw.bash({ script: "seq 1 10000" });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBeLessThanOrEqual(1000);
    expect(r.stdout.endsWith("9999\n10000\n")).toBe(true);
  });

  it("passes cwd, env and stdin, and scrubs provider keys", async () => {
    claw = await apiClaw({
      env: { ...process.env, OPENROUTER_API_KEY: "secret", OPENAI_API_KEY: "secret2", KEEP_ME: "yes" },
    });
    const dir = tempDir();
    const r = await claw.bash({
      script: 'pwd; echo "$FOO $KEEP_ME ${OPENROUTER_API_KEY:-none} ${OPENAI_API_KEY:-none}"; cat',
      cwd: dir,
      env: { FOO: "bar" },
      stdin: "piped",
    });
    expect(r.stdout).toBe(`${dir}\nbar yes none none\npiped`);
    expect(await claw.do({ op: "bash", args: { script: "true", cwd: join(dir, "missing") } })).toMatchObject({
      ok: false,
      error: { code: "invalid_args" },
    });
  });

  it("kills the process group when the caller aborts", async () => {
    claw = await apiClaw();
    const arg = uniqueSleep();
    const ac = new AbortController();
    const p = claw.bash({ script: `sleep ${arg} & echo started; wait` }, { signal: ac.signal });
    await vi.waitFor(() => expect(pidsWithArg(arg), `processes with ${arg}`).not.toEqual([]), WAIT);
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: "AbortError" }); // the signal's reason, as fetch rejects
    expect(await waitArgGone(arg)).toBe(true); // and the bash is killed all the same
  });

  it("limits concurrent processes with a clear error", async () => {
    claw = await apiClaw({ limits: { maxBashProcesses: 2 } });
    const running = [claw.bash({ script: "sleep 0.5" }), claw.bash({ script: "sleep 0.5" })];
    const third = await claw.do({ op: "bash", args: { script: "true" } });
    expect(third).toMatchObject({ ok: false, error: { code: "too_many_requests", retryable: true } });
    await Promise.all(running);
    expect(await claw.do({ op: "bash", args: { script: "true" } })).toMatchObject({ ok: true });
  });
});

// bash sources ~/.bashrc even when not interactive if its stdin is a socket (Node's pipes are
// socketpairs) and SHLVL is unset, as under systemd or a container's init. An agent's calls must
// not run the user's interactive set-up: it can print, be slow (pyenv, nvm, conda) or hang.
describe.each([
  ["none", false],
  ["bwrap", false],
  ["bwrap", true],
] as const)("bash (sandbox %s, keepBackground %s) does not read ~/.bashrc", (sandbox, keepBackground) => {
  it("under an environment without SHLVL, stdin a socket", async () => {
    const home = tempDir();
    const marker = join(home, "rc-was-read");
    const { writeFileSync, existsSync } = await import("node:fs");
    writeFileSync(join(home, ".bashrc"), `touch ${marker}; echo rc >&2\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, OPENROUTER_API_KEY: "test-key" };
    delete env.SHLVL;
    delete env.BASH_ENV;
    claw = memClaw({ sandbox, env });
    const r = await claw.bash({ script: "echo hi", keepBackground });
    expect(r).toMatchObject({ stdout: "hi\n", stderr: "", exitCode: 0, sandbox });
    expect(existsSync(marker)).toBe(false);
  });
});
