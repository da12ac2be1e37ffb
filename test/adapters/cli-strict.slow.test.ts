/** The strict CLI, as a user meets it: real processes, exit codes and the one-line errors. */
import { mkdtempSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { memClaw } from "../helpers/claw.js";
import { startServer } from "../helpers/server.js";
import { runCli } from "./cli-run.js";

const dir = mkdtempSync(join(tmpdir(), "tsclaw-strict-"));
const inDir = { cwd: dir, env: { CLAW_DB: "", CLAW_LISTEN: "" } };

describe("strict CLI", () => {
  afterAll(() => {
    // Nothing refused may have created a database in the working directory.
    expect(readdirSync(dir)).toEqual([]);
  });

  it("serve refuses unknown flags, -p, --port and stray arguments with exit 2 and the closest flag", async () => {
    const runs = await Promise.all([
      runCli(["serve", "--lsiten", ":18740"], inDir),
      runCli(["serve", "--port", "8001"], inDir),
      runCli(["serve", "-p", "8001"], inDir),
      runCli(["serve", "extra"], inDir),
      runCli(["serve", "--db"], inDir),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2]);
    expect(runs.map((r) => r.stderr)).toEqual([
      "tsclaw serve: unknown flag --lsiten (did you mean --listen?)\n",
      "tsclaw serve: unknown flag --port (did you mean --listen?)\n",
      "tsclaw serve: unknown flag -p (did you mean --listen?)\n",
      'tsclaw serve: unexpected argument "extra" (serve takes no arguments; run tsclaw serve --help)\n',
      "tsclaw serve: flag --db needs a value (--db PATH|URL)\n",
    ]);
  });

  it("stdio --dbb and do --urll are refused before anything is opened or sent", async () => {
    const server = await startServer(memClaw());
    try {
      const [stdio, doUrl] = await Promise.all([
        runCli(["stdio", "--dbb", "x.db"], { ...inDir, input: '{"op":"out","args":{"payload":1}}\n' }),
        runCli(["do", "out", '{"payload":1}', "--urll", server.url], inDir),
      ]);
      expect(stdio).toMatchObject({
        code: 2,
        stdout: "",
        stderr: "tsclaw stdio: unknown flag --dbb (did you mean --db?)\n",
      });
      expect(doUrl).toMatchObject({ code: 2, stderr: "tsclaw do: unknown flag --urll (did you mean --url?)\n" });
      expect((await server.claw.bus.read({})).lastSeq).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("a bad CLAW_* value is a usage error naming the variable", async () => {
    const r = await runCli(["stdio"], { cwd: dir, env: { CLAW_MAX_BASH: "lots", CLAW_DB: ":memory:" } });
    expect(r).toMatchObject({
      code: 2,
      stderr: 'tsclaw stdio: CLAW_MAX_BASH must be a positive integer, not "lots"\n',
    });
  });

  it("version, -v and --version print the version; an unknown command names the closest", async () => {
    const [a, b, c, bad] = await Promise.all([
      runCli(["version"]),
      runCli(["-v"]),
      runCli(["--version"]),
      runCli(["serv"]),
    ]);
    for (const r of [a, b, c]) expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    expect(bad).toMatchObject({
      code: 2,
      stderr: 'tsclaw: unknown command "serv" (did you mean serve?); run tsclaw --help\n',
    });
  });

  it("do with a mistyped operation names the closest ones", async () => {
    const server = await startServer(memClaw());
    try {
      const r = await runCli(["do", "ot", "--url", server.url], { env: { CLAW_TOKEN: server.token } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^tsclaw: unknown_op: [^\n]*did you mean [^\n]*\bout\b[^\n]*\n$/);
    } finally {
      await server.close();
    }
  });

  it("do with a mistyped operation and no server says both", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const [typo, known] = await Promise.all([
      runCli(["do", "ot", "--url", `http://127.0.0.1:${port}`], inDir),
      runCli(["do", "out", "--url", `http://127.0.0.1:${port}`], inDir),
    ]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(
      /^tsclaw: cannot reach [^\n]*; "ot" is not an operation either \(did you mean out\?\)\n$/,
    );
    expect(known.code).toBe(1);
    expect(known.stderr).toMatch(/^tsclaw: cannot reach /);
    expect(known.stderr).not.toContain("not an operation");
  });

  it("a serve that cannot listen exits 1 and has not created its database", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await runCli(["serve", "--listen", `127.0.0.1:${port}`, "--db", "taken.db"], inDir);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^tsclaw: cannot listen on 127\.0\.0\.1:\d+: [^\n]*EADDRINUSE/);
    } finally {
      taken.close();
    }
  });
});
