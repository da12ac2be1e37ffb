/**
 * Nothing a script prints can crash or bloat the server: a template with 100 000 "{payload}"
 * places on a real `serve`, a 90 MB line without a newline, templates that cannot fit the
 * payload limit (the op and the model's bash tool), lines cut to fit, and the per-call event cap.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBashTool } from "../../src/agent/bash-tool.js";
import { LineSplitter } from "../../src/core/line-splitter.js";
import type { Claw } from "../../src/index.js";
import { readAll, type ServeProcess, startServe } from "../fault/serve-process.js";
import { memClaw, tempDir } from "../helpers/claw.js";
import { processAlive } from "../helpers/process.js";

let claw: Claw | undefined;
let server: ServeProcess | undefined;
afterEach(async () => {
  await claw?.close();
  claw = undefined;
  await server?.stop();
  server = undefined;
});

async function payloadSizes(c: Claw, bus: string): Promise<number[]> {
  const r = await c.bus.read({ bus, limit: 1000 });
  return r.events.map((e) => Buffer.byteLength(JSON.stringify(e.payload)));
}

describe("bash events are bounded", () => {
  it("a template with 100 000 {payload} places and 6 000 bytes of output does not crash serve", async () => {
    server = await startServe(join(tempDir(), "claw.db"));
    const template = Array.from({ length: 100_000 }, () => "{payload}");
    const r = await server.op("bash", {
      script: "head -c 6000 /dev/zero | tr '\\0' x",
      stdoutLineEvent: { template, bus: "wide" },
    });
    expect(r.body).toMatchObject({ ok: true, result: { exitCode: 0, linesCut: 1 } });
    expect(processAlive(server.pid)).toBe(true);
    const events = await readAll(server, "wide");
    expect(events).toHaveLength(1);
    expect(Buffer.byteLength(JSON.stringify(events[0]!.payload))).toBeLessThanOrEqual(1024 * 1024);
    expect(events[0]!.payload).toHaveLength(100_000);
    expect(events[0]!.payload[0]).toMatch(/^x+$/);
    expect((await server.op("out", { payload: "still serving" })).body).toMatchObject({ ok: true });
  });

  it("90 MB without a newline becomes one event cut to the payload limit", async () => {
    claw = memClaw();
    const r = await claw.bash({
      script: "head -c 90000000 /dev/zero | tr '\\0' a",
      stdoutLineEvent: { template: { line: "{payload}" }, bus: "long" },
    });
    expect(r).toMatchObject({ exitCode: 0, linesCut: 1, truncated: true });
    const sizes = await payloadSizes(claw, "long");
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toBeLessThanOrEqual(1024 * 1024);
    expect(sizes[0]).toBeGreaterThan(1024 * 1024 - 100);
  });

  it("the partial-line buffer never holds more than its bound", () => {
    const bound = 1024 * 1024;
    const lines: [number, boolean][] = [];
    const splitter = new LineSplitter((line, cut) => lines.push([line.length, cut]), { maxLineBytes: bound });
    const chunk = Buffer.alloc(65536, "a".charCodeAt(0));
    let peak = 0;
    for (let i = 0; i < 1400; i++) {
      splitter.push(chunk);
      peak = Math.max(peak, splitter.bufferedBytes);
    }
    splitter.push(Buffer.from("tail\nnext\r\nlast"));
    splitter.end();
    expect(peak).toBe(bound);
    expect(lines).toEqual([
      [bound, true],
      [4, false],
      [4, false],
    ]);
  });

  it("a multi-byte character is never split at the bound", () => {
    const got: string[] = [];
    const splitter = new LineSplitter((line) => got.push(line), { maxLineBytes: 5 });
    splitter.push(Buffer.from("ab"));
    splitter.push(Buffer.from("cd€ef\n"));
    expect(got).toEqual(["abcd"]);
  });

  it("refuses a template that cannot fit the limit before the script starts", async () => {
    claw = memClaw({ limits: { maxPayloadBytes: 1000 } });
    const marker = join(tempDir(), "started");
    for (const field of ["stdoutLineEvent", "stderrLineEvent", "exitEvent", "timeoutEvent"]) {
      const env = await claw.do({
        op: "bash",
        args: { script: `touch ${marker}`, [field]: { template: { pad: "x".repeat(1000), v: "{payload}" } } },
      });
      expect(env).toMatchObject({
        ok: false,
        error: { code: "invalid_args", retryable: false, details: { issues: [{ path: `${field}.template` }] } },
      });
    }
    expect(existsSync(marker)).toBe(false);
    // The same for the model's bash tool.
    const out = await runBashTool(
      claw.services.bash,
      "bash",
      JSON.stringify({ script: `touch ${marker}`, stdoutLineEvent: { template: ["x".repeat(2000)] } }),
      { signal: new AbortController().signal, contextEnv: {}, bus: "thebus" },
    );
    expect(out).toMatchObject({ isError: true, result: { error: { code: "invalid_args" } } });
    expect(existsSync(marker)).toBe(false);
  });

  it("cuts a line so that its event fits, escapes and multi-byte characters included", async () => {
    claw = memClaw({ limits: { maxPayloadBytes: 1000 } });
    const r = await claw.bash({
      script: `printf 'short\\n'; for i in $(seq 300); do printf '"é\\\\🎉'; done; printf '\\nend'`,
      stdoutLineEvent: { template: { a: "{payload}", b: "<{payload}>", n: 1 }, bus: "cut" },
    });
    expect(r.linesCut).toBe(1);
    const events = (await claw.bus.read({ bus: "cut" })).events.map((e) => e.payload as any);
    expect(events.map((e) => e.a)).toEqual(["short", expect.any(String), "end"]);
    const cut = events[1];
    expect(Buffer.byteLength(JSON.stringify(cut))).toBeLessThanOrEqual(1000);
    expect(Buffer.byteLength(JSON.stringify(cut))).toBeGreaterThan(900);
    expect(cut.b).toBe(`<${cut.a}>`);
    expect('"é\\🎉'.repeat(300).startsWith(cut.a)).toBe(true);
    expect(cut.a).not.toMatch(/[\ud800-\udbff]$/); // no half of a surrogate pair
  });

  it("publishes at most maxEventsPerCall line events, then still the exit and timeout events", async () => {
    claw = memClaw({ limits: { maxEventsPerCall: 100 } });
    const r = await claw.bash({
      script: "seq 1 120; seq 1 80 >&2; exit 4",
      stdoutLineEvent: { template: { out: "{payload}" }, bus: "cap" },
      stderrLineEvent: { template: { err: "{payload}" }, bus: "cap" },
      exitEvent: { template: { exit: "{payload}" }, bus: "cap" },
      timeoutEvent: { template: { timedOut: "{payload}" }, bus: "cap" },
    });
    expect(r).toMatchObject({ exitCode: 4, eventsDropped: 100 });
    const payloads = (await claw.bus.read({ bus: "cap", limit: 1000 })).events.map((e) => e.payload);
    expect(payloads).toHaveLength(102);
    expect(payloads.slice(-2)).toEqual([{ exit: 4 }, { timedOut: false }]);
    expect(r.stdout.split("\n")).toHaveLength(121); // capture is not affected by the cap
  });

  it("defaults to 100 000 line events per call", () => {
    claw = memClaw();
    expect(claw.config.limits.maxEventsPerCall).toBe(100_000);
  });
});
