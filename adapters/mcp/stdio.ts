/**
 * MCP over stdio: a server over a claw on stdin/stdout, both eras (the SDK v2's serveStdio reads
 * the opening message: `server/discover` or a request with the 2026-07-28 envelope pins the
 * connection to the modern server, `initialize` to the 2025-era one, as /mcp routes each POST),
 * or a relay from stdio to a running server's /mcp (two SDK transports joined; messages pass
 * unchanged).
 */
import type { Readable, Writable } from "node:stream";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { StdioServerTransport as StdioWire, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Claw } from "../../src/claw/claw.js";
import { createModernServer } from "./modern-server.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

/** The streams to speak on. Default: process.stdin / process.stdout */
export interface StdioStreams {
  input?: Readable;
  output?: Writable;
}

function ended(input: Readable): Promise<void> {
  return new Promise((resolve) => {
    if (input.readableEnded || input.destroyed) return resolve();
    input.once("end", resolve);
    input.once("close", resolve);
  });
}

/** Serves MCP for `claw` on the streams until the input ends. */
export async function serveMcpStdio(
  claw: Claw,
  streams: StdioStreams = {},
  options: McpServerOptions = {},
): Promise<void> {
  const input = streams.input ?? process.stdin;
  const connection = serveStdio(
    // The 2025 era stays on the v1 server (its experimental tasks); it has the shape serveStdio
    // connects (connect, close), which its types name only for v2 servers.
    ({ era }) =>
      era === "modern"
        ? createModernServer(claw, { progressIntervalMs: options.progressIntervalMs })
        : (createMcpServer(claw, options) as unknown as ReturnType<typeof createModernServer>),
    {
      transport: new StdioWire(input, streams.output ?? process.stdout),
      onerror: (err) => claw.config.log(`tsclaw mcp: ${err.message}`),
    },
  );
  await ended(input);
  await connection.close();
}

/**
 * Relays MCP between the streams and `url`/mcp until either side ends. The remote session
 * (its id and negotiated protocol version) is the stdio client's own.
 */
export async function relayMcpStdio(
  url: string,
  headers: Record<string, string>,
  streams: StdioStreams = {},
): Promise<void> {
  const input = streams.input ?? process.stdin;
  const local = new StdioServerTransport(input, streams.output ?? process.stdout);
  const remote = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } });
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const fail = (message: JSONRPCMessage, err: unknown) => {
    // A request the server never saw still gets its answer, so the client does not hang.
    if (!isJSONRPCRequest(message)) return;
    const text = `tsclaw mcp: cannot reach ${url}/mcp: ${(err as Error).message}`;
    local.send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: text } }).catch(() => {});
  };
  local.onmessage = (message) => {
    remote.send(message).catch((err) => fail(message, err));
  };
  remote.onmessage = (message) => {
    // The HTTP transport sends the negotiated version on every later request, as the SDK client would set it.
    const version = isJSONRPCResultResponse(message) ? message.result.protocolVersion : undefined;
    if (typeof version === "string") remote.setProtocolVersion(version);
    local.send(message).catch(() => {});
  };
  remote.onerror = (err) => process.stderr.write(`tsclaw mcp: ${err.message}\n`);
  local.onclose = finish;
  remote.onclose = finish;
  await remote.start();
  await local.start();
  await Promise.race([done, ended(input)]);
  await remote.terminateSession().catch(() => {});
  await Promise.all([remote.close(), local.close()]);
}
