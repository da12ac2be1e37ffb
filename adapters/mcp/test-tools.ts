/**
 * Probe tools that MCP test suites call by name, served only when asked for (`tsclaw serve
 * --mcp-test-tools`), never part of the registry's tool list otherwise.
 *
 * `test_error_handling` always answers a tool error (the suite's tools-call-error scenario).
 * `test_reconnection` is the tool the official conformance suite's SSE polling scenario calls:
 * it closes its own SSE stream at once, the way every long call is closed when polling, and
 * answers once the client has reconnected with Last-Event-ID. A client author can call it to
 * see their reconnection work without waiting for a long call.
 */
import type { CallToolResult, RequestId, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { CallStreams } from "./polling.js";

/** The conformance suite's SSE polling probe. */
export const TEST_RECONNECTION = "test_reconnection";

/** The conformance suite's tool-error probe. */
export const TEST_ERROR_HANDLING = "test_error_handling";

/** How long the probe goes on after closing its stream, in ms: the answer comes mid-reconnect. */
const AFTER_CLOSE_MS = 50;

/** The probe tools' definitions, for tools/list. */
export const TEST_TOOLS: readonly Tool[] = [
  {
    name: TEST_RECONNECTION,
    description:
      "Test probe (served with --mcp-test-tools): closes this call's SSE stream at once and answers after the " +
      "client reconnects with Last-Event-ID (SSE polling, MCP 2025-11-25). Answers at once on other revisions.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    execution: { taskSupport: "forbidden" },
  },
  {
    name: TEST_ERROR_HANDLING,
    description: "Test probe (served with --mcp-test-tools): always answers a tool error (isError).",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    execution: { taskSupport: "forbidden" },
  },
];

/** Runs a probe tool. */
export async function callTestTool(
  name: string,
  streams: CallStreams | undefined,
  requestId: RequestId,
): Promise<CallToolResult> {
  if (name === TEST_ERROR_HANDLING) {
    return { content: [{ type: "text", text: "This tool intentionally returns an error for testing" }], isError: true };
  }
  const polled = streams?.resumable() === true;
  if (name === TEST_RECONNECTION && polled) {
    streams!.close(requestId);
    await new Promise((r) => setTimeout(r, AFTER_CLOSE_MS));
  }
  return {
    content: [
      {
        type: "text",
        text: polled
          ? "Reconnection test completed successfully"
          : "Reconnection test skipped: this session's protocol revision has no SSE polling",
      },
    ],
  };
}
