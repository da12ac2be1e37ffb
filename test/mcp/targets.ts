/**
 * The two places an MCP client meets tsclaw in the tests: a real `tsclaw serve` process on
 * 127.0.0.1:0 (Streamable HTTP at /mcp) and a real `tsclaw mcp` process (stdio), both on a
 * SQLite file and the fake model. Each can be restarted on the same database.
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cliCommand } from "../adapters/cli-run.js";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";
import { httpMcpClient, stdioMcpClient } from "./clients.js";

/** Test token of every serve process. */
export const TOKEN = "mcp-test-token-0123456789";

/** A tsclaw instance an MCP client talks to. */
export interface McpTarget {
  readonly name: "http" | "stdio";
  /** The connected client (a new one after restart). */
  client: Client;
  /** The pid of the server process. */
  pid(): number;
  /** Stops the server process cleanly and starts it again on the same database; reconnects. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

function clawEnv(fakeUrl: string): Record<string, string> {
  return {
    OPENROUTER_API_KEY: "test-key",
    CLAW_BASE_URL: fakeUrl,
    CLAW_PROJECT: "mcp-test",
    CLAW_URL: "",
    CLAW_TOKEN: "",
  };
}

/** `tsclaw serve` + StreamableHTTPClientTransport. */
export async function httpTarget(fakeUrl: string): Promise<McpTarget & { serve: ServeProcess }> {
  const db = join(tempDir("tsclaw-mcp-"), "claw.db");
  const start = () => startServe(db, ["--token", TOKEN], clawEnv(fakeUrl));
  let serve = await start();
  const target = {
    name: "http" as const,
    serve,
    client: await httpMcpClient(serve.url, TOKEN),
    pid: () => serve.pid,
    async restart() {
      await target.client.close();
      await serve.stop();
      serve = await start();
      target.serve = serve;
      target.client = await httpMcpClient(serve.url, TOKEN);
    },
    async close() {
      await target.client.close();
      await serve.stop();
    },
  };
  return target;
}

/** `tsclaw mcp --db …` + StdioClientTransport. */
export async function stdioTarget(fakeUrl: string): Promise<McpTarget> {
  const db = join(tempDir("tsclaw-mcp-"), "claw.db");
  const [node, ...cli] = await cliCommand();
  const env = { ...(process.env as Record<string, string>), ...clawEnv(fakeUrl) };
  const start = () => stdioMcpClient(node!, [...cli, "mcp", "--db", db], env);
  let conn: { client: Client; transport: StdioClientTransport } = await start();
  const target = {
    name: "stdio" as const,
    client: conn.client,
    pid: () => conn.transport.pid!,
    async restart() {
      await conn.client.close();
      conn = await start();
      target.client = conn.client;
    },
    async close() {
      await conn.client.close();
    },
  };
  return target;
}
