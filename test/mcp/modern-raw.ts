/** Raw MCP 2026-07-28 JSON-RPC over HTTP for tests: the envelope, the standard headers, SSE frames. */

/** The tasks extension's id. */
export const TASKS = "io.modelcontextprotocol/tasks";

/** A per-request `_meta` envelope; `tasks` declares the extension. */
export function envelope(tasks = true): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [TASKS]: {} } } : {},
  };
}

/** Options of one raw call. */
export interface RawOptions {
  /** Declare the tasks extension. Default: true */
  tasks?: boolean;
  /** Header overrides; undefined removes one. Default: the standard headers for the body */
  headers?: Record<string, string | undefined>;
  /** Replaces `_meta`. Default: the envelope */
  meta?: unknown;
}

/** The parsed JSON-RPC answer of an SSE or JSON response (the frame with the request's id). */
async function answerOf(res: Response): Promise<any> {
  const text = await res.text();
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) return JSON.parse(text);
  const frames = text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));
  return frames.find((f) => "result" in f || "error" in f);
}

/** Sends one request; resolves with the HTTP status and the JSON-RPC answer. */
export async function raw(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  options: RawOptions = {},
): Promise<{ status: number; body: any }> {
  const name = (params.name ?? params.taskId ?? params.uri) as string | undefined;
  const headers: Record<string, string | undefined> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(name !== undefined ? { "mcp-name": name } : {}),
    ...options.headers,
  };
  const body = { jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: options.meta ?? envelope(options.tasks) } };
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined)),
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await answerOf(res) };
}

/** Opens subscriptions/listen for task ids; `next()` resolves with the next notification. */
export async function listenTasks(url: string, token: string, taskIds: string[]) {
  const abort = new AbortController();
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    signal: abort.signal,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 99,
      method: "subscriptions/listen",
      params: { notifications: { taskIds }, _meta: envelope() },
    }),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const queued: any[] = [];
  let buffer = "";
  const next = async (): Promise<any> => {
    for (;;) {
      if (queued.length > 0) return queued.shift();
      const { value, done } = await reader.read();
      if (done) throw new Error("the listen stream ended");
      buffer += value;
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const data = buffer
          .slice(0, cut)
          .split("\n")
          .find((l) => l.startsWith("data: "));
        if (data) queued.push(JSON.parse(data.slice(6)));
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf("\n\n");
      }
    }
  };
  return { status: res.status, next, close: () => abort.abort() };
}
