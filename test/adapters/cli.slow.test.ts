import { afterEach, describe, expect, it, vi } from "vitest";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { WAIT } from "../helpers/wait.js";
import { runCli, spawnCli } from "./cli-run.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("tsclaw CLI", () => {
  it("--version, --help and per-command --help", async () => {
    const [version, help, doHelp, tailHelp, bad] = await Promise.all([
      runCli(["--version"]),
      runCli(["--help"]),
      runCli(["do", "--help"]),
      runCli(["tail", "--help"]),
      runCli(["frobnicate"]),
    ]);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    for (const cmd of ["serve", "stdio", "do", "tail", "doc"]) expect(help.stdout).toContain(cmd);
    expect(doHelp).toMatchObject({ code: 0, stdout: expect.stringContaining("Usage: tsclaw do <op>") });
    expect(tailHelp.stdout).toContain("--after N");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('tsclaw: unknown command "frobnicate"; run tsclaw --help\n');
  });

  it("stdio: protocol lines only on stdout, U+2028 intact, in-flight bash finished at EOF, exit 0", async () => {
    const input = [
      `{"op":"out","args":{"bus":"cli","payload":"a\u2028b"},"id":1}`,
      "garbage",
      `{"op":"bash","args":{"script":"sleep 0.5; echo late"},"id":2}`,
    ].join("\n");
    const r = await runCli(["stdio", "--db", ":memory:"], { input: `${input}\n` });
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.id === 1)).toMatchObject({ ok: true, result: { bus: "cli", seq: 1 } });
    expect(lines.find((l) => l.id === null)).toMatchObject({ ok: false, error: { code: "invalid_json" } });
    expect(lines.find((l) => l.id === 2)).toMatchObject({ ok: true, result: { stdout: "late\n" } });
  });

  it("do: prints the result; on failure one line on stderr and exit 1; token from CLAW_TOKEN", async () => {
    server = await startServer(memClaw(), { token: "tok" });
    const env = { CLAW_URL: server.url, CLAW_TOKEN: "tok" };
    const [ok, unknown, badArgs, noToken, unreachable, notJson] = await Promise.all([
      runCli(["do", "out", '{"bus":"d","payload":{"x":1}}'], { env }),
      runCli(["do", "no_such_op"], { env }),
      runCli(["do", "read", '{"limit":0}'], { env }),
      runCli(["do", "list_buses", "--url", server.url], { env: { CLAW_TOKEN: "" } }),
      runCli(["do", "list_buses", "--url", "http://127.0.0.1:9"]),
      runCli(["do", "out", "{oops"], { env }),
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ bus: "d", seq: 1, ts: expect.any(Number) });
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toMatch(/^tsclaw: unknown_op: [^\n]+\n$/);
    expect(badArgs.stderr).toMatch(/^tsclaw: invalid_args: [^\n]*limit[^\n]*\n$/);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/^tsclaw: unauthorized: /);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^tsclaw: cannot reach http:\/\/127\.0\.0\.1:9: [^\n]+\n$/);
    expect(notJson.code).toBe(2);
  });

  it("do reads the arguments from stdin with -", async () => {
    server = await startServer(memClaw());
    const r = await runCli(["do", "bash", "-", "--url", server.url], {
      input: '{"script":"echo piped"}',
      env: { CLAW_TOKEN: server.token },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).stdout).toBe("piped\n");
  });

  it("tail: prints events as JSON lines from --after, follows live ones, stops after --count", async () => {
    server = await startServer(memClaw());
    await server.claw.bus.out({ bus: "t", payload: 1 });
    await server.claw.bus.out({ bus: "t", payload: 2 });
    const tail = await spawnCli(["tail", "t", "--after", "1", "--count", "3", "--url", server.url], {
      CLAW_TOKEN: server.token,
    });
    // Up to 25 s: the wait includes the CLI process's start (the test's own timeout is 30 s).
    await vi.waitFor(() => expect(tail.out().split("\n").filter(Boolean).length).toBeGreaterThanOrEqual(1), {
      ...WAIT,
      timeout: 25_000,
    });
    await server.claw.bus.out({ bus: "t", payload: 3 });
    await server.claw.bus.out({ bus: "t", payload: 4 });
    expect(await tail.exited).toBe(0);
    const events = tail
      .out()
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.map((e) => [e.seq, e.payload])).toEqual([
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
    expect(events[0]).toEqual({ bus: "t", seq: 2, ts: expect.any(Number), payload: 2 });
  });

  it("tail: a bad bus name or an unreachable server exits non-zero with one line", async () => {
    const [bad, down] = await Promise.all([
      runCli(["tail", "not a bus"]),
      runCli(["tail", "--url", "http://127.0.0.1:9"]),
    ]);
    expect(bad.code).toBe(2);
    expect(down.code).toBe(1);
    expect(down.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("doc prints the guide with every operation", async () => {
    const r = await runCli(["doc"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# tsclaw/);
    for (const op of ["out", "read", "bash", "ops", "doc"]) expect(r.stdout).toContain(`### \`${op}\``);
  });
});
