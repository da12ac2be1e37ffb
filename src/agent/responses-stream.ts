/**
 * One model turn over the Responses API with `stream: true`: sends the full input, forwards the
 * tool-call stream events (and text deltas when asked) as they arrive, and collects every
 * completed output item exactly as the provider sent it, with the usage and how the response
 * ended.
 */
import type OpenAI from "openai";
import type {
  FunctionTool,
  ResponseIncludable,
  ResponseInputItem,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { ClawError } from "../core/errors.js";
import { linkSignals } from "../core/link-signals.js";
import { requestBody } from "./request-body.js";
import { responseEvents } from "./response-events.js";
import type { Usage } from "./session-schemas.js";
import { usageOf } from "./usage.js";

/** An output item as the provider sent it: reasoning, function_call, message, or any other type. */
export type OutputItem = { type: string } & Record<string, unknown>;

/** What one turn produced. */
export interface TurnOutput {
  /** Completed output items, in output order, unchanged. */
  items: OutputItem[];
  usage: Usage;
  /** `incomplete`: the provider stopped early (`incompleteReason` says why, e.g. max_output_tokens). */
  status: "completed" | "incomplete";
  incompleteReason?: string;
}

/** Arguments of one streamed call. */
export interface TurnRequest {
  model: string;
  instructions: string;
  input: ResponseInputItem[];
  tools: FunctionTool[];
  /** Default: "auto" */
  toolChoice?: "auto" | "none";
  /** Default: none */
  include?: ResponseIncludable[];
  signal: AbortSignal;
  /** Receives each raw event to publish (tool-call events; text deltas when `streamText`). */
  onEvent: (event: ResponseStreamEvent) => void;
  streamText: boolean;
}

const FORWARDED = new Set(["response.function_call_arguments.delta", "response.function_call_arguments.done"]);

/** Streams one model response. Throws the client's errors (APIError …) unchanged, `provider_error`, or `cancelled`. */
export async function streamTurn(client: OpenAI, req: TurnRequest): Promise<TurnOutput> {
  // The SDK never removes the abort listener it adds to a request's signal, so each turn gets its
  // own signal, linked to the run's only while the turn lasts (else a long run leaks listeners).
  const turn = linkSignals(req.signal);
  try {
    return await streamTurnWith(client, req, turn.signal);
  } finally {
    turn.release();
  }
}

async function streamTurnWith(client: OpenAI, req: TurnRequest, signal: AbortSignal): Promise<TurnOutput> {
  const rest = {
    tools: req.tools,
    tool_choice: req.toolChoice ?? "auto",
    stream: true as const,
    // Stateless: the whole history goes with every request, reasoning as encrypted content.
    store: false,
    ...(req.include && req.include.length > 0 ? { include: req.include } : {}),
  };
  // The body's bytes, the settled history's part as the run's context keeps it (encoded once,
  // not once per turn: request-body.ts); the client sends a byte body as it is.
  const { body, released } = requestBody(req, req.input, rest);
  const response = await client.responses
    .create(
      { model: req.model, instructions: req.instructions, input: req.input, ...rest },
      { signal, body, headers: { "content-type": "application/json" } },
    )
    // The client sends the request and turns an error answer into its errors; the events are
    // read here, without its Web Streams (response-events.ts).
    .asResponse();
  // Keyed by output_index: items finish in any order when calls stream in parallel.
  const done = new Map<number, OutputItem>();
  let ended: { status: TurnOutput["status"]; usage: Usage; reason?: string; output: OutputItem[] } | undefined;
  for await (const event of responseEvents(response, signal)) {
    switch (event.type) {
      case "response.output_item.added":
        if (event.item.type === "function_call") req.onEvent(event);
        break;
      case "response.output_item.done":
        if (event.item.type === "function_call") req.onEvent(event);
        done.set(event.output_index ?? done.size, event.item as unknown as OutputItem);
        break;
      case "response.output_text.delta":
        if (req.streamText) req.onEvent(event);
        break;
      case "response.completed":
      case "response.incomplete":
        ended = {
          status: event.type === "response.completed" ? "completed" : "incomplete",
          usage: usageOf(event.response.usage),
          reason: event.response.incomplete_details?.reason ?? undefined,
          output: (event.response.output ?? []) as unknown as OutputItem[],
        };
        break;
      case "response.failed": {
        const e = event.response.error;
        throw new ClawError(
          "provider_error",
          `the model failed: ${e?.message ?? "no reason given"}`,
          { providerCode: e?.code ?? null, providerMessage: e?.message ?? null },
          false,
        );
      }
      case "error":
        // A data-only error event without a nested `error` object (the SDK throws for those).
        throw new ClawError(
          "provider_error",
          `the model stream reported an error: ${event.message}`,
          { providerCode: event.code ?? null, providerMessage: event.message },
          false,
        );
      default:
        if (FORWARDED.has(event.type)) req.onEvent(event);
    }
  }
  // The events end quietly when the request is aborted.
  if (req.signal.aborted) throw new ClawError("cancelled", "the run was aborted");
  if (!ended)
    throw new ClawError("provider_error", "the model stream ended before response.completed", { network: true }, true);
  // The model answered in full, so it read the whole request: the body's bytes are free again.
  // (After any failure they are left to the request, and the next body is written elsewhere.)
  released();
  const items = [...done.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item);
  return {
    // A provider that sends no item events still lists the output in the final response.
    items: items.length > 0 ? items : ended.output,
    usage: ended.usage,
    status: ended.status,
    ...(ended.reason !== undefined ? { incompleteReason: ended.reason } : {}),
  };
}
