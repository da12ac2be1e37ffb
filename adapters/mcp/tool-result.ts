/**
 * A tsclaw response envelope as an MCP tool result: success is `structuredContent` plus one
 * text block of the same JSON; failure is `isError` with one text block `{"error": {...}}` and
 * no `structuredContent` (the output schema describes success, and clients validate it).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Response } from "../../src/core/wire.js";

/** Converts a response envelope to a tool result. */
export function toToolResult(response: Response): CallToolResult {
  if (response.ok) {
    const result = response.result as Record<string, unknown>;
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  }
  return { content: [{ type: "text", text: JSON.stringify({ error: response.error }) }], isError: true };
}
