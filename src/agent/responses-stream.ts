/**
 * One model turn over the Responses API with `stream: true`: sends the full input, forwards the
 * tool-call stream events (and text deltas when asked) as they arrive, and collects the
 * completed output items and usage.
 */
import type OpenAI from "openai";
import type { FunctionTool, ResponseInputItem, ResponseStreamEvent } from "openai/resources/responses/responses";
import { ClawError } from "../errors.js";
import type { Usage } from "./session-schemas.js";

/** One function call the model made. */
export interface ModelCall {
  callId: string;
  name: string;
  arguments: string;
}

/** A completed output item, in output order. */
export type ModelOutput = { kind: "text"; text: string } | ({ kind: "call" } & ModelCall);

/** What one turn produced. */
export interface TurnOutput {
  outputs: ModelOutput[];
  usage: Usage;
}

/** Arguments of one streamed call. */
export interface TurnRequest {
  model: string;
  instructions: string;
  input: ResponseInputItem[];
  tools: FunctionTool[];
  /** Default: "auto" */
  toolChoice?: "auto" | "none";
  signal: AbortSignal;
  /** Receives each raw event to publish (tool-call events; text deltas when `streamText`). */
  onEvent: (event: ResponseStreamEvent) => void;
  streamText: boolean;
}

const FORWARDED = new Set(["response.function_call_arguments.delta", "response.function_call_arguments.done"]);

/** Streams one model response. Throws the client's errors (APIError …) unchanged, or `cancelled`. */
export async function streamTurn(client: OpenAI, req: TurnRequest): Promise<TurnOutput> {
  // The SDK never removes the abort listener it adds to a request's signal, so each turn gets its
  // own signal, linked to the run's only while the turn lasts (else a long run leaks listeners).
  const turn = new AbortController();
  const forward = () => turn.abort();
  if (req.signal.aborted) turn.abort();
  else req.signal.addEventListener("abort", forward, { once: true });
  try {
    return await streamTurnWith(client, req, turn.signal);
  } finally {
    req.signal.removeEventListener("abort", forward);
  }
}

async function streamTurnWith(client: OpenAI, req: TurnRequest, signal: AbortSignal): Promise<TurnOutput> {
  const stream = await client.responses.create(
    {
      model: req.model,
      instructions: req.instructions,
      input: req.input,
      tools: req.tools,
      tool_choice: req.toolChoice ?? "auto",
      stream: true,
      store: false,
    },
    { signal },
  );
  const outputs: ModelOutput[] = [];
  const usage: Usage = { input: 0, output: 0, total: 0 };
  let finished = false;
  for await (const event of stream) {
    switch (event.type) {
      case "response.output_item.added":
        if (event.item.type === "function_call") req.onEvent(event);
        break;
      case "response.output_item.done":
        if (event.item.type === "function_call") {
          req.onEvent(event);
          outputs.push({
            kind: "call",
            callId: event.item.call_id,
            name: event.item.name,
            arguments: event.item.arguments,
          });
        } else if (event.item.type === "message") {
          const text = event.item.content.map((c) => (c.type === "output_text" ? c.text : "")).join("");
          if (text !== "") outputs.push({ kind: "text", text });
        }
        break;
      case "response.output_text.delta":
        if (req.streamText) req.onEvent(event);
        break;
      case "response.completed":
      case "response.incomplete": {
        const u = event.response.usage;
        if (u)
          Object.assign(usage, {
            input: u.input_tokens ?? 0,
            output: u.output_tokens ?? 0,
            total: u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0),
          });
        finished = true;
        break;
      }
      case "response.failed":
        throw new ClawError(
          "provider_error",
          `the model failed: ${event.response.error?.message ?? "no reason given"}`,
          { providerCode: event.response.error?.code },
          false,
        );
      case "error":
        throw new ClawError(
          "provider_error",
          `the model stream reported an error: ${event.message}`,
          { providerCode: event.code },
          true,
        );
      default:
        if (FORWARDED.has(event.type)) req.onEvent(event);
    }
  }
  // The SDK ends the iteration quietly when the request is aborted.
  if (req.signal.aborted) throw new ClawError("cancelled", "the run was aborted");
  if (!finished)
    throw new ClawError("provider_error", "the model stream ended before response.completed", { network: true }, true);
  return { outputs, usage };
}
