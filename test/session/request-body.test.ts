/**
 * The request text built with the settled history's text kept by the run's context
 * (request-body.ts, run-context.ts) is exactly what JSON.stringify of the same request gives, and
 * only the items after the kept text are encoded.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { expect, test, vi } from "vitest";
import { joinJson, requestJson, withEncodedPrefix } from "../../src/agent/request-body.js";
import { RunContext } from "../../src/agent/run-context.js";
import type { Message } from "../../src/agent/session-schemas.js";

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

test("a marked prefix's text is taken as it is and only the items after it are encoded", () => {
  const head = { model: "m", instructions: "i" };
  const rest = { tools, stream: true };
  const settled = items();
  const prefix = joinJson("", settled.slice(0, 3));
  expect(prefix).toBe(JSON.stringify(settled.slice(0, 3)).slice(1, -1));
  const input = [...settled];
  withEncodedPrefix(input, 3, prefix);
  const spy = vi.spyOn(JSON, "stringify");
  try {
    const text = requestJson(head, input, rest);
    const encoded = spy.mock.calls.filter(([v]) => input.includes(v as ResponseInputItem)).map(([v]) => v);
    expect(encoded).toEqual(input.slice(3));
    spy.mockRestore();
    expect(text).toBe(JSON.stringify({ ...head, input, ...rest }));
    // An unmarked array with the same items is encoded whole, and reads the same.
    expect(requestJson(head, [...input], rest)).toBe(text);
  } finally {
    spy.mockRestore();
  }
});

test("a run's context hands out inputs whose text is its settled history's, kept and extended turn after turn", () => {
  const at = (seq: number, m: Partial<Message>): Message =>
    ({ id: `m${seq}`, seq, runId: null, createdAt: seq, ...m }) as Message;
  const history: Message[] = [
    at(1, { role: "user", text: 'first "one" ünï' }),
    at(2, { role: "assistant", text: "ok" }),
    at(3, { role: "user", text: "second" }),
  ];
  const context = new RunContext(history);
  const head = { model: "m", instructions: "i" };
  const rest = { tools, stream: true };
  const check = () => {
    const input = context.input();
    expect(requestJson(head, input, rest)).toBe(JSON.stringify({ ...head, input, ...rest }));
  };
  check();
  context.add(at(4, { role: "assistant", text: "answer" }));
  check();
  context.add(at(5, { role: "user", text: "third" }));
  check();
  check();
  context.add(at(6, { role: "summary", text: "all so far" }));
  check();
  context.add(at(7, { role: "user", text: "after the summary" }));
  check();
});
