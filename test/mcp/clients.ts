/** MCP clients for tests: the official SDK's Client over Streamable HTTP (a real server) or stdio (a real process). */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A connected client that has listed the tools (so it validates structured results). */
export async function httpMcpClient(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "tsclaw-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** A client over stdio to `command args`. */
export async function stdioMcpClient(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const client = new Client({ name: "tsclaw-test", version: "1.0.0" });
  const transport = new StdioClientTransport({ command, args, env, stderr: "pipe" });
  await client.connect(transport);
  await client.listTools();
  return { client, transport };
}

/** A tool result as a tsclaw envelope; checks the one text block holds the same JSON. */
export function envelopeOf(r: CallToolResult): { ok: boolean; result?: any; error?: any } {
  if (r.content.length !== 1 || r.content[0]!.type !== "text")
    throw new Error(`expected one text block: ${JSON.stringify(r).slice(0, 300)}`);
  const text = JSON.parse((r.content[0] as { text: string }).text);
  if (r.isError) {
    if (r.structuredContent !== undefined) throw new Error("an error result carries structuredContent");
    return { ok: false, error: text.error };
  }
  if (JSON.stringify(text) !== JSON.stringify(r.structuredContent))
    throw new Error("text block differs from structuredContent");
  return { ok: true, result: r.structuredContent };
}
