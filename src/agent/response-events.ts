/**
 * The events of a streamed Responses answer, read with `eventsource-parser` straight from the
 * Node stream the model fetch kept (model-fetch.ts), or from the Web body of any other fetch (the
 * demo model's). They are what the OpenAI client's own stream would yield for the same bytes:
 * each event's data parsed as JSON, nothing after `[DONE]`, and an event carrying an `error`
 * object thrown as the client's `APIError`, so model-retry.ts classifies every failure as before.
 */
import { createParser } from "eventsource-parser";
import { APIError } from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { ClawError } from "../core/errors.js";
import { streamedBody } from "./model-fetch.js";

/**
 * Yields the answer's events in order. Ends quietly when `signal` aborts the body (the caller
 * checks the signal, as it did with the client's stream); any other failure of the body (a cut
 * connection) is thrown as it came.
 */
export async function* responseEvents(response: Response, signal: AbortSignal): AsyncGenerator<ResponseStreamEvent> {
  // Node's ReadableStream is async iterable (the DOM's types, which the dashboard's check uses, say not).
  const body = streamedBody(response) ?? (response.body as AsyncIterable<Uint8Array> | null);
  if (!body) throw new ClawError("provider_error", "the model answered without a body", { network: true }, true);
  const ready: ResponseStreamEvent[] = [];
  let failure: APIError | undefined;
  let done = false;
  const parser = createParser({
    onEvent: (message) => {
      if (done || failure) return;
      if (message.data.startsWith("[DONE]")) {
        done = true;
        return;
      }
      const data = JSON.parse(message.data) as ResponseStreamEvent & { error?: unknown };
      if (data?.error) failure = new APIError(undefined, data.error as object, undefined, response.headers);
      else ready.push(data);
    },
  });
  const text = new TextDecoder();
  try {
    // Read to the end even after [DONE], so the connection goes back to the pool.
    for await (const chunk of body) {
      parser.feed(text.decode(chunk, { stream: true }));
      for (const event of ready.splice(0)) yield event;
      if (failure) throw failure;
    }
  } catch (err) {
    if (signal.aborted) return;
    throw err;
  }
}
