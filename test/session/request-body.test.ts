/**
 * The request text built with each input item's JSON kept (request-body.ts) is exactly what
 * JSON.stringify of the same request gives, and an item's text is made once however many turns
 * send it.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { expect, test, vi } from "vitest";
import { requestJson } from "../../src/agent/request-body.js";

const items = (): ResponseInputItem[] => [
  { type: "message", role: "user", content: 'say "hi" \u2028 and ünïcödé 🎉 \\ back' },
  {
    type: "reasoning",
    id: "rs_1",
    summary: [],
    encrypted_content: "gAAAA…",
  } as ResponseInputItem,
  { type: "function_call", call_id: "call_1", name: "bash", arguments: '{"script":"echo 1"}', id: undefined },
  { type: "function_call_output", call_id: "call_1", output: '{"stdout":"1\\n","exitCode":0}' },
  {
    type: "message",
    role: "assistant",
    id: "msg_1",
    status: "completed",
    content: [{ type: "output_text", text: "done", annotations: [] }],
  } as ResponseInputItem,
];

const tools = [{ type: "function" as const, name: "bash", description: "run bash", parameters: {}, strict: false }];

test("the text is JSON.stringify's, with and without include, and for no input at all", () => {
  const head = { model: "openai/gpt-5", instructions: "be brief\n" };
  for (const input of [items(), []]) {
    for (const include of [undefined, ["reasoning.encrypted_content"]]) {
      const rest = { tools, tool_choice: "auto", stream: true, store: false, ...(include ? { include } : {}) };
      const text = requestJson(head, input, rest);
      expect(text).toBe(JSON.stringify({ ...head, input, ...rest }));
      expect(JSON.parse(text).input).toEqual(JSON.parse(JSON.stringify(input)));
    }
  }
});

test("an item kept from turn to turn is encoded once; a new item is encoded when it first goes", () => {
  const settled = items();
  const rest = { tools, stream: true };
  const spy = vi.spyOn(JSON, "stringify");
  try {
    requestJson({ model: "m", instructions: "i" }, settled, rest);
    const first = spy.mock.calls.filter(([v]) => settled.includes(v as ResponseInputItem)).length;
    expect(first).toBe(settled.length);
    spy.mockClear();
    const next = [...settled, { type: "message", role: "user", content: "again" } as ResponseInputItem];
    const text = requestJson({ model: "m", instructions: "i" }, next, rest);
    const encoded = spy.mock.calls.filter(([v]) => next.includes(v as ResponseInputItem)).map(([v]) => v);
    expect(encoded).toEqual([next.at(-1)]);
    spy.mockRestore();
    expect(text).toBe(JSON.stringify({ model: "m", instructions: "i", input: next, ...rest }));
  } finally {
    spy.mockRestore();
  }
});

test("a history's next turn keeps the text it sent; a changed history is joined again, and so is the next model or tool set", () => {
  const rest = { tools, stream: true };
  const history = items();
  const same = (input: ResponseInputItem[], head = { model: "m", instructions: "i" }, r: object = rest) =>
    expect(requestJson(head, input, r as Record<string, unknown>)).toBe(JSON.stringify({ ...head, input, ...r }));
  same(history);
  const longer = [...history, { type: "message", role: "user", content: "more" } as ResponseInputItem];
  same(longer);
  same(longer); // nothing new
  same(longer, { model: "other", instructions: "ünï" }, { tools: [], stream: true, store: false });
  // Shorter, an item replaced in the middle (the same first item), then the longer one again.
  same(history.slice(0, 2));
  const replaced = [...longer];
  replaced[2] = { type: "function_call_output", call_id: "call_9", output: "x" };
  same(replaced);
  same(longer);
  same([history[0]!]);
});
