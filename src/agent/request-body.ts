/**
 * The JSON text of a Responses request. A run replays the session's whole history every turn,
 * and the client would encode all of it again each time (JSON.stringify of the request: ~3 ms
 * a turn at 1 000 stored messages here). The run's context (run-context.ts) keeps the text of
 * the history's settled items, extended as items settle, and marks each input it hands out
 * with it (`withEncodedPrefix`); the body then encodes only the items after that prefix. The
 * text is exactly what JSON.stringify of the same request gives.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";

/** The text of an input's first `count` items (joined with commas), for the inputs marked with one. */
const encodedPrefixes = new WeakMap<readonly ResponseInputItem[], { count: number; json: string }>();

/**
 * Marks `input` as starting with `count` items whose JSON, joined with commas, is `json`. The
 * mark lives as long as the array; its items must not change while it does.
 */
export function withEncodedPrefix(input: readonly ResponseInputItem[], count: number, json: string): void {
  encodedPrefixes.set(input, { count, json });
}

/** The items' JSON joined with commas, appended to `json` (the text of items before them, if any). */
export function joinJson(json: string, items: readonly ResponseInputItem[]): string {
  let text = json;
  for (const item of items) text += text === "" ? JSON.stringify(item) : `,${JSON.stringify(item)}`;
  return text;
}

/**
 * `JSON.stringify({ model, instructions, input, ...rest })`, the text of `input`'s marked prefix
 * taken as it is. `rest` holds the other fields in request order (never empty: the tools are
 * always sent).
 */
export function requestJson(
  head: { model: string; instructions: string },
  input: readonly ResponseInputItem[],
  rest: Record<string, unknown>,
): string {
  const prefix = encodedPrefixes.get(input);
  const items = joinJson(prefix?.json ?? "", prefix ? input.slice(prefix.count) : input);
  const tail = JSON.stringify(rest);
  return `{"model":${JSON.stringify(head.model)},"instructions":${JSON.stringify(head.instructions)},"input":[${items}],${tail.slice(1)}`;
}
