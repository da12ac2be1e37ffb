/**
 * The request body built from the settled history the run's context keeps as bytes
 * (request-body.ts, run-context.ts) is exactly the UTF-8 of what JSON.stringify of the same
 * request gives, only the items after the kept ones are encoded, and a body still held by its
 * request is never written over.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { expect, test, vi } from "vitest";
import { EncodedHistory, requestBody, withEncodedPrefix } from "../../src/agent/request-body.js";
import { RunContext } from "../../src/agent/run-context.js";
import type { Message } from "../../src/agent/session-schemas.js";

const items = (): ResponseInputItem[] => [
  { type: "message", role: "user", content: 'say "hi" \u2028 and ünïcödé 🎉 \\ back \ud800 lone' },
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

/** An item long enough to put a history past the text it keeps before it keeps bytes. */
const long = (n: number): ResponseInputItem =>
  ({ type: "message", role: "user", content: `${"ü".repeat(40_000)} ${n}` }) as ResponseInputItem;

const tools = [{ type: "function" as const, name: "bash", description: "run bash", parameters: {}, strict: false }];
const text = (b: string | Buffer) => (typeof b === "string" ? b : b.toString("utf8"));
const expected = (head: object, input: unknown[], rest: object) =>
  Buffer.from(JSON.stringify({ ...head, input, ...rest }), "utf8");
const bytes = (b: string | Buffer) => (typeof b === "string" ? Buffer.from(b, "utf8") : Buffer.from(b));

test("the body is JSON.stringify's, with and without include, and for no input at all", () => {
  const head = { model: "openai/gpt-5", instructions: "be brief\n ünï" };
  for (const input of [items(), []]) {
    for (const include of [undefined, ["reasoning.encrypted_content"]]) {
      const rest = { tools, tool_choice: "auto", stream: true, store: false, ...(include ? { include } : {}) };
      const { body } = requestBody(head, input, rest);
      expect(bytes(body)).toEqual(expected(head, input, rest));
      expect(JSON.parse(text(body)).input).toEqual(JSON.parse(JSON.stringify(input)));
      // The same after a marked history, settled or not, kept as text or as bytes.
      for (const before of [[], [long(1), long(2)]]) {
        for (const settled of [0, 2, input.length]) {
          const history = new EncodedHistory();
          history.append(before);
          history.append(input.slice(0, settled));
          const marked = [...before, ...input];
          withEncodedPrefix(marked, history);
          const b = requestBody(head, marked, rest).body;
          expect(Buffer.isBuffer(b)).toBe(before.length > 0);
          expect(bytes(b)).toEqual(expected(head, marked, rest));
        }
      }
    }
  }
});

test("a marked history's items are taken as they are and only the items after them are encoded", () => {
  const head = { model: "m", instructions: "i" };
  const rest = { tools, stream: true };
  const settled = [long(1), long(2), ...items()];
  const history = new EncodedHistory();
  history.append(settled.slice(0, 3));
  history.append(settled.slice(3, 5));
  const input = [...settled];
  withEncodedPrefix(input, history);
  const spy = vi.spyOn(JSON, "stringify");
  try {
    const { body } = requestBody(head, input, rest);
    const encoded = spy.mock.calls.filter(([v]) => input.includes(v as ResponseInputItem)).map(([v]) => v);
    expect(encoded).toEqual(input.slice(5));
    expect(Buffer.isBuffer(body)).toBe(true);
    spy.mockRestore();
    expect(bytes(body)).toEqual(expected(head, input, rest));
    // An unmarked array with the same items is encoded whole, and reads the same.
    expect(bytes(requestBody(head, [...input], rest).body)).toEqual(bytes(body));
  } finally {
    spy.mockRestore();
  }
});

test("a mark made before the history changed is not used: the input is encoded whole", () => {
  const head = { model: "m", instructions: "i" };
  const rest = { tools, stream: true };
  const all = items();
  const history = new EncodedHistory();
  history.append(all.slice(0, 2));
  const stale = all.slice(0, 3);
  withEncodedPrefix(stale, history);
  history.append(all.slice(2, 4));
  const b = requestBody(head, stale, rest).body;
  expect(typeof b).toBe("string");
  expect(bytes(b)).toEqual(expected(head, stale, rest));
  history.clear();
  const after = all.slice(0, 1);
  withEncodedPrefix(after, history);
  expect(bytes(requestBody(head, after, rest).body)).toEqual(expected(head, after, rest));
});

test("a body not yet released keeps its bytes while the next bodies are built", () => {
  const rest = { tools, stream: true };
  const all = [long(1), long(2), ...items()];
  const history = new EncodedHistory();
  history.append(all.slice(0, 3));
  const first = [...all.slice(0, 4)];
  withEncodedPrefix(first, history);
  const held = requestBody({ model: "m", instructions: "i" }, first, rest);
  const kept = Buffer.from(held.body as Buffer);
  // Not released (a failed request may still be sending it): a new head, more items, a new body.
  history.append(all.slice(3, 6));
  const next = [...all.slice(0, 7)];
  withEncodedPrefix(next, history);
  const other = requestBody({ model: "a much longer model name than before", instructions: "ïï" }, next, rest);
  expect(Buffer.from(held.body as Buffer)).toEqual(kept);
  expect(bytes(other.body)).toEqual(
    expected({ model: "a much longer model name than before", instructions: "ïï" }, next, rest),
  );
  // Released, the buffer is written again: the released body's bytes change, the new one is right.
  other.released();
  const last = requestBody({ model: "m", instructions: "i" }, next, { tools, stream: false });
  expect(bytes(last.body)).toEqual(expected({ model: "m", instructions: "i" }, next, { tools, stream: false }));
});

test("a history of many items grows its buffer and stays exact", () => {
  const history = new EncodedHistory();
  const all: ResponseInputItem[] = [];
  const head = { model: "m", instructions: "i" };
  for (let i = 0; i < 300; i++) {
    const item = { type: "message", role: i % 2 ? "assistant" : "user", content: `${"x".repeat(i * 7)} ü ${i}` };
    all.push(item as ResponseInputItem);
    history.append([item as ResponseInputItem]);
    if (i % 37 === 0) {
      const input = [...all, { type: "message", role: "user", content: "open" } as ResponseInputItem];
      withEncodedPrefix(input, history);
      const b = requestBody(head, input, { stream: true });
      // Compared as bytes at once (toEqual walks a Buffer byte by byte).
      expect(bytes(b.body).equals(expected(head, input, { stream: true }))).toBe(true);
      b.released();
    }
  }
});

test("a run's context hands out inputs whose body keeps its settled history's bytes, turn after turn", () => {
  const at = (seq: number, m: Partial<Message>): Message =>
    ({ id: `m${seq}`, seq, runId: null, createdAt: seq, ...m }) as Message;
  const history: Message[] = [
    at(1, { role: "user", text: `first "one" ünï ${"x".repeat(70_000)}` }),
    at(2, { role: "assistant", text: "ok" }),
    at(3, { role: "user", text: "second" }),
  ];
  const context = new RunContext(history);
  const head = { model: "m", instructions: "i" };
  const rest = { tools, stream: true };
  const kinds: string[] = [];
  const check = (release: boolean) => {
    const input = context.input();
    const b = requestBody(head, input, rest);
    kinds.push(Buffer.isBuffer(b.body) ? "bytes" : "text");
    expect(bytes(b.body)).toEqual(expected(head, input, rest));
    if (release) b.released();
  };
  check(true);
  context.add(at(4, { role: "assistant", text: "answer" }));
  check(false);
  context.add(at(5, { role: "user", text: "third" }));
  check(true);
  check(true);
  context.add(at(55, { role: "assistant", text: `${"y".repeat(70_000)}` }));
  check(false);
  context.add(at(56, { role: "user", text: "fourth" }));
  check(true);
  context.add(at(6, { role: "summary", text: "all so far" }));
  check(false);
  context.add(at(7, { role: "user", text: "after the summary" }));
  check(true);
  // Past the text it keeps, the context keeps bytes; after the summary, text again.
  expect(kinds).toEqual(["bytes", "bytes", "bytes", "bytes", "bytes", "bytes", "text", "text"]);
});
