/**
 * The JSON text of a Responses request, built with each input item's JSON kept from one turn to
 * the next. A run replays the session's whole history every turn, and the client would encode
 * all of it again each time (JSON.stringify of the request: ~3 ms per turn at 1 000 stored
 * messages here). The items of the settled history are the same objects turn after turn (the
 * run's context keeps them), so their text is made once, and the text of a history's items as
 * last sent is kept: a turn encodes and appends only the items new since the last one. The text
 * is exactly what JSON.stringify of the same request gives. (Kept as UTF-8 bytes instead, the
 * turn at 1 000 messages cost more, not less: a fresh 350 KB buffer a turn.)
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

/** The items' JSON joined, as last sent for a history starting with a given item (the key). */
interface Joined {
  items: readonly ResponseInputItem[];
  text: string;
}
const joinedFrom = new WeakMap<object, Joined>();

/**
 * The items' JSON texts joined with commas. A history's next turn sends the items of its last
 * turn and a few more: when the input starts with exactly the items last joined for the same
 * first item, their text is kept and only the new items' are added (joining 1 000 kept texts
 * again was ~1 ms a turn).
 */
function itemsJson(input: readonly ResponseInputItem[]): string {
  const first = input[0];
  if (first === undefined) return "";
  const last = joinedFrom.get(first);
  const kept = last !== undefined && last.items.length <= input.length && last.items.every((x, i) => x === input[i]);
  let text = kept ? last.text : jsonOf(first);
  for (let i = kept ? last.items.length : 1; i < input.length; i++) text += `,${jsonOf(input[i]!)}`;
  joinedFrom.set(first, { items: input.slice(), text });
  return text;
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
  const items = itemsJson(input);
  const tail = JSON.stringify(rest);
  return `{"model":${JSON.stringify(head.model)},"instructions":${JSON.stringify(head.instructions)},"input":[${items}],${tail.slice(1)}`;
}
