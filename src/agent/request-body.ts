/**
 * The JSON text of a Responses request, built with each input item's JSON kept from one turn to
 * the next. A run replays the session's whole history every turn, and the client would encode
 * all of it again each time (JSON.stringify of the request: ~3 ms per turn at 1 000 stored
 * messages here). The items of the settled history are the same objects turn after turn (the
 * run's context keeps them), so their text is made once and joined; only the newest items are
 * encoded. The text is exactly what JSON.stringify of the same request gives.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";

/** Each item's JSON, for as long as the item (kept by a run's context) lives. */
const itemJson = new WeakMap<object, string>();

function jsonOf(item: ResponseInputItem): string {
  let json = itemJson.get(item);
  if (json === undefined) {
    json = JSON.stringify(item);
    itemJson.set(item, json);
  }
  return json;
}

/**
 * `JSON.stringify({ model, instructions, input, ...rest })`, its `input` items from the cache.
 * `rest` holds the other fields in request order (never empty: the tools are always sent).
 */
export function requestJson(
  head: { model: string; instructions: string },
  input: readonly ResponseInputItem[],
  rest: Record<string, unknown>,
): string {
  const items = input.map(jsonOf).join(",");
  const tail = JSON.stringify(rest);
  return `{"model":${JSON.stringify(head.model)},"instructions":${JSON.stringify(head.instructions)},"input":[${items}],${tail.slice(1)}`;
}
