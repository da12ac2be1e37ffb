/**
 * The demo model (`--model-provider demo`): a deterministic stand-in for a Responses API
 * server, answering in-process through the OpenAI client's `fetch` option, so sessions and
 * tasks can be tried without a key or a network. It is not an LLM: on a new user message it
 * runs one bash command (the text between backticks in the message, else a look around the
 * working directory), then reports what the command printed.
 */

type Item = { type?: string; role?: string; content?: unknown; output?: unknown };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c: { text?: unknown }) => (typeof c?.text === "string" ? c.text : "")).join("");
}

/** What the demo does next: call bash with a script, or answer with text. */
export function demoTurn(input: readonly Item[]): { script: string } | { text: string } {
  let lastUser = -1;
  for (let i = input.length - 1; i >= 0 && lastUser < 0; i--) if (input[i]!.role === "user") lastUser = i;
  const message = lastUser >= 0 ? textOf(input[lastUser]!.content) : "";
  const outputs = input.slice(lastUser + 1).filter((i) => i.type === "function_call_output");
  if (outputs.length === 0) {
    const quoted = /`([^`]+)`/.exec(message)?.[1];
    return { script: quoted ?? "pwd; ls | head -n 20" };
  }
  let result: { stdout?: string; stderr?: string; exitCode?: number } = {};
  try {
    result = JSON.parse(String(outputs.at(-1)!.output));
  } catch {
    // not the bash result shape: report it as text below
  }
  const shown = (result.stdout || result.stderr || "").trimEnd().split("\n").slice(0, 20).join("\n");
  return {
    text: `Demo model (no LLM): the command exited ${result.exitCode ?? "?"}${shown ? ` and printed:\n${shown}` : " and printed nothing"}`,
  };
}

let counter = 0;
const id = (prefix: string) => `${prefix}_demo${(++counter).toString(36)}`;

function events(model: string, turn: ReturnType<typeof demoTurn>): object[] {
  const response = { id: id("resp"), object: "response", created_at: Math.floor(Date.now() / 1000), model };
  const item =
    "script" in turn
      ? {
          id: id("fc"),
          type: "function_call",
          status: "completed",
          call_id: id("call"),
          name: "bash",
          arguments: JSON.stringify({ script: turn.script }),
        }
      : {
          id: id("msg"),
          type: "message",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: turn.text, annotations: [] }],
        };
  const added = { ...item, status: "in_progress", ...("arguments" in item ? { arguments: "" } : { content: [] }) };
  const middle =
    "script" in turn && "arguments" in item
      ? [
          { type: "response.function_call_arguments.delta", item_id: item.id, output_index: 0, delta: item.arguments },
          {
            type: "response.function_call_arguments.done",
            item_id: item.id,
            output_index: 0,
            arguments: item.arguments,
          },
        ]
      : [
          {
            type: "response.output_text.delta",
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            delta: "text" in turn ? turn.text : "",
          },
        ];
  const usage = {
    input_tokens: 0,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 0,
  };
  return [
    { type: "response.created", response: { ...response, status: "in_progress", output: [] } },
    { type: "response.output_item.added", output_index: 0, item: added },
    ...middle,
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response: { ...response, status: "completed", output: [item], usage } },
  ];
}

const utf8 = new TextDecoder();

/** A `fetch` that answers `POST …/responses` (streaming) as the demo model; anything else is 404. */
export async function demoFetch(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  const path = String(url instanceof Request ? url.url : url);
  // A run sends its body as UTF-8 bytes (request-body.ts); a caller of its own may send text.
  const text =
    typeof init?.body === "string" ? init.body : init?.body instanceof Uint8Array ? utf8.decode(init.body) : undefined;
  if (!path.endsWith("/responses") || text === undefined)
    return new Response(JSON.stringify({ error: { message: "the demo model only streams /responses" } }), {
      status: 404,
      headers: { "content-type": "application/json" },
    });
  const body = JSON.parse(text) as { model?: string; input?: Item[] };
  const sse = events(body.model ?? "demo", demoTurn(body.input ?? []))
    .map((e, i) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`)
    .join("");
  return new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } });
}
