/**
 * Inputs the OS refuses are the caller's error, never `internal`/retryable: NUL bytes in the
 * script, env or cwd, and templates nested too deep. A script or variable too large for execve
 * (E2BIG) still runs. Checked in-process and over a real HTTP server.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runBashTool } from "../../src/agent/bash-tool.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function nested(depth: number): unknown {
  let t: unknown = "{payload}";
  for (let i = 0; i < depth; i++) t = { t };
  return t;
}

describe("bash inputs the OS refuses", () => {
  it("NUL bytes and templates nested deeper than 64 levels are invalid_args, over HTTP too", async () => {
    server = await startServer(memClaw());
    const bad: [Record<string, unknown>, string][] = [
      [{ script: "echo a\0b" }, "script"],
      [{ script: "true", env: { A: "x\0y" } }, "env.A"],
      [{ script: "true", env: { "A\0B": "x" } }, "env"],
      [{ script: "true", env: { "A=B": "x" } }, "env"],
      [{ script: "true", cwd: "/tmp\0/x" }, "cwd"],
      [{ script: "true", stdoutLineEvent: { template: nested(65) } }, "stdoutLineEvent.template"],
      [{ script: "true", exitEvent: { template: nested(3000) } }, "exitEvent.template"],
    ];
    for (const [args, path] of bad) {
      const { status, body } = await server.post({ op: "bash", args, id: 1 });
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body.error.code).toBe("invalid_args");
      expect(body.error.retryable).toBe(false);
      expect(body.error.details.issues.map((i: { path: string }) => i.path).join(",")).toContain(path);
    }
    const ok = await server.op("bash", { script: "true", stdoutLineEvent: { template: nested(63) } });
    expect(ok).toMatchObject({ ok: true });
  });

  it("the model's bash tool gets the same invalid_args", async () => {
    const claw = memClaw();
    try {
      const out = await runBashTool(claw.services.bash, "bash", JSON.stringify({ script: "a\0b" }), {
        signal: new AbortController().signal,
        contextEnv: {},
        bus: "thebus",
      });
      expect(out).toMatchObject({ isError: true, result: { error: { code: "invalid_args" } } });
    } finally {
      await claw.close();
    }
  });

  it("runs a 1 MiB script and a 300 KiB variable that execve alone would refuse (E2BIG)", async () => {
    server = await startServer(memClaw());
    const lines = Array.from({ length: 20_000 }, (_, i) => `x${i}=${"y".repeat(40)}`).join("\n");
    const script = `${lines}\necho "$x19999" "\${#BIG}"; echo "q'uote"; exit 3`;
    expect(Buffer.byteLength(script)).toBeGreaterThan(900_000);
    const big = `'${"z".repeat(300 * 1024)}\n"$HOME"`;
    const r = await server.op("bash", { script, env: { BIG: big, SMALL: "s" } });
    expect(r).toMatchObject({ ok: true, result: { exitCode: 3 } });
    expect(r.result.stdout).toBe(`${"y".repeat(40)} ${big.length}\nq'uote\n`);
    const same = await server.op("bash", {
      script: '[ "$BIG" = "$WANT" ] && echo same; echo "$SMALL"',
      env: { BIG: big, WANT: big, SMALL: "s" },
    });
    expect(same.result.stdout).toBe("same\ns\n");
  });
});
