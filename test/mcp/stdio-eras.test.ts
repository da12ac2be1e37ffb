/**
 * `tsclaw mcp` (a real child process) serves both MCP eras over stdio: the SDK v2 client pinned
 * to 2026-07-28 (server/discover, the per-request envelope, the tasks extension announced) and
 * the same client in the 2025 era (initialize), each publishing and reading back a bus event.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { cleanEnv, cliCommand } from "../adapters/cli-run.js";
import { tempDir } from "../helpers/claw.js";
import { TASKS } from "./modern-raw.js";

async function connect(mode: "legacy" | { pin: string }, db: string): Promise<Client> {
  const [node, ...cli] = await cliCommand();
  const client = new Client(
    { name: "tsclaw-stdio-test", version: "1.0.0" },
    { capabilities: { extensions: { [TASKS]: {} } } as never, versionNegotiation: { mode } },
  );
  const env = { ...(cleanEnv() as Record<string, string>), OPENROUTER_API_KEY: "test-key", CLAW_PROJECT: "stdio" };
  await client.connect(
    new StdioClientTransport({ command: node!, args: [...cli, "mcp", "--db", db], env, stderr: "pipe" }),
  );
  return client;
}

const text = (r: { content: unknown }) => JSON.parse((r.content as { text: string }[])[0]!.text);

describe.each([
  ["2026-07-28", { pin: "2026-07-28" }],
  ["2025-11-25", "legacy"],
] as const)("tsclaw mcp over stdio, era %s", (version, mode) => {
  it("negotiates the era and answers tool calls", async () => {
    const db = join(tempDir("tsclaw-stdio-eras-"), "claw.db");
    const client = await connect(mode, db);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      const caps = client.getServerCapabilities() as { extensions?: Record<string, unknown> };
      if (version === "2026-07-28") expect(caps.extensions).toHaveProperty([TASKS]);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["out", "read", "run_task", "check_task"]));
      const out = await client.callTool({ name: "out", arguments: { bus: "eras", payload: { era: version } } });
      expect(out.isError).toBeFalsy();
      expect(text(out).seq).toBe(1);
      const read = await client.callTool({ name: "read", arguments: { bus: "eras" } });
      expect((read.structuredContent as { events: { payload: unknown }[] }).events.map((e) => e.payload)).toEqual([
        { era: version },
      ]);
    } finally {
      await client.close();
    }
  }, 60_000);
});
