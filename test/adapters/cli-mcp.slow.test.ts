/**
 * `tsclaw mcp` as MCP clients launch it: from a directory of their own, possibly under another
 * Node. The relay (--url) finds the token by absolute path and never loads the SQLite driver; a
 * local `tsclaw mcp` whose driver was built for another Node says so and how to fix it.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";
import { cleanEnv, cliBundle, ROOT } from "./cli-run.js";

let serve: ServeProcess;
let db: string;
let cli: string;
beforeAll(async () => {
  // Split into chunks as the package's build is: a command's imports load only when it runs.
  cli = await cliBundle();
  db = join(tempDir("tsclaw-mcp-abs-"), "claw.db");
  serve = await startServe(db); // generates <db>.token
}, 60_000);
afterAll(async () => {
  await serve?.stop();
});

const NO_SQLITE = `${ROOT}test/fixtures/no-native-sqlite.mjs`;

/** The official client starting the relay under a hook that refuses better-sqlite3, from another directory. */
async function relayClient(args: string[]): Promise<Client> {
  const client = new Client({ name: "tsclaw-test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", NO_SQLITE, cli, "mcp", "--url", serve.url, ...args],
    env: cleanEnv() as Record<string, string>,
    cwd: tempDir("tsclaw-mcp-elsewhere-"),
    stderr: "pipe",
  });
  await client.connect(transport);
  return client;
}

describe("tsclaw mcp as a client launches it", () => {
  it("relays with --db or --token-file given as absolute paths, without loading the SQLite driver", async () => {
    for (const args of [
      ["--db", db],
      ["--token-file", `${db}.token`],
    ]) {
      const client = await relayClient(args);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain("run_task");
        const r = await client.callTool({ name: "out", arguments: { bus: "abs", payload: args[0] } });
        expect(r.isError).toBeFalsy();
      } finally {
        await client.close();
      }
    }
    const token = readFileSync(`${db}.token`, "utf8").trim();
    const res = await fetch(`${serve.url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ op: "read", args: { bus: "abs" } }),
    });
    const body = (await res.json()) as { result: { events: { payload: unknown }[] } };
    expect(body.result.events.map((e) => e.payload)).toEqual(["--db", "--token-file"]);
  }, 60_000);

  it("a local tsclaw mcp whose driver was built for another Node names both versions and the fix", async () => {
    const child = spawn(
      process.execPath,
      ["--require", `${ROOT}test/fixtures/native-abi-mismatch.cjs`, cli, "mcp", "--db", join(tempDir(), "x.db")],
      { env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code).toBe(1);
    expect(out).toBe(""); // stdout is the protocol's
    expect(err).toContain(
      `better-sqlite3 (the SQLite driver) was built for Node 22, but this is Node ${process.version}`,
    );
    expect(err).toMatch(/Fix: rebuild it with this Node: \(cd \S+ && npm rebuild better-sqlite3\)/);
  }, 60_000);
});
