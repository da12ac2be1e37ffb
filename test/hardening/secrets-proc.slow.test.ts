/**
 * Provider keys and the server token are not readable in the real
 * serve process's /proc/<pid>/environ or /proc/<pid>/cmdline, and the key still reaches the
 * model provider.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";

let fake: FakeResponses;
let server: ServeProcess | undefined;
beforeAll(async () => {
  fake = await startFakeResponses();
});
afterAll(async () => {
  await fake?.close();
});
afterEach(async () => {
  if (server?.child.exitCode === null) await server.stop();
  server = undefined;
});

const KEY = "sk-or-secret-key-0123456789";
const proc = (pid: number, file: string) => readFileSync(`/proc/${pid}/${file}`, "latin1");

describe("secrets in /proc", () => {
  it("the provider key and CLAW_TOKEN are gone from environ; the key still reaches the provider", async () => {
    server = await startServe(":memory:", ["--base-url", fake.url], {
      OPENROUTER_API_KEY: KEY,
      CLAW_TOKEN: "env-token-secret-42",
    });
    const environ = proc(server.pid, "environ");
    expect(environ).toContain("OPENROUTER_API_KEY="); // the name stays, the value is gone
    expect(environ).not.toContain(KEY);
    expect(environ).not.toContain("env-token-secret-42");
    const r = await server.op("run_task", { prompt: "hi", sessionKey: "k" });
    expect(r.status).toBe(200);
    await fake.waitForRequests(1);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
  }, 60_000);

  it("a token given with --token is gone from cmdline and still works", async () => {
    server = await startServe(":memory:", ["--token", "flag-token-secret-7"]);
    const cmdline = proc(server.pid, "cmdline");
    expect(cmdline).toContain("--token");
    expect(cmdline).not.toContain("flag-token-secret-7");
    expect(server.stderr()).toMatch(/WARNING: +--token puts the token on the command line/);
    expect((await server.op("list_buses")).status).toBe(200);
  }, 60_000);
});
