/**
 * Real-model stream shapes replayed through a real `tsclaw serve` process, as the provider would
 * send them: the right final text and tool results, the bus events, one request for errors that
 * cannot clear, and follow-up requests whose `input` carries every item the model sent (reasoning
 * with its encrypted content, messages with phase and id, call arguments byte for byte).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAll, type ServeProcess, startServe } from "../fault/serve-process.js";
import { blob, call, message, reasoning, refusal, webSearch } from "../fixtures/fake-items.js";
import {
  errorEvent,
  type FakeRequest,
  type FakeResponses,
  type FakeTurn,
  fail,
  respond,
  startFakeResponses,
  streamError,
} from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";

interface Case {
  name: string;
  turns: FakeTurn[];
  prompts: string[];
  status: string;
  text?: string;
  stdout?: string[];
  requests: number;
  error?: { code: string; providerCode?: string; reason?: string };
}

const CASES: Case[] = [
  {
    name: "reasoning + call, three steps (gpt-5.1-codex-max, store:false)",
    turns: [
      respond([
        reasoning({ summary: ["**Step by step**"], encrypted: blob("s1") }),
        call('{"script":"echo $((12+7))"}'),
      ]),
      respond([call('{"script":"echo $((19*3))"}')]),
      respond([reasoning({ encrypted: blob("s3") }), call('{"script": "echo $((57*10))"}')]),
      respond([message("The final result is **570**.")]),
    ],
    prompts: ["Compute (12 + 7) * 3 * 10 step by step with the tool."],
    status: "completed",
    text: "The final result is **570**.",
    stdout: ["19\n", "57\n", "570\n"],
    requests: 4,
  },
  {
    name: "parallel calls after reasoning (gpt-5)",
    turns: [
      respond([reasoning({ encrypted: blob("par") }), call('{"script":"echo a"}'), call('{"script":"echo b"}')]),
      respond([reasoning({ encrypted: blob("par2") }), message("a, b")]),
    ],
    prompts: ["Run both."],
    status: "completed",
    text: "a, b",
    stdout: ["a\n", "b\n"],
    requests: 2,
  },
  {
    name: "phase messages and a web search item (gpt-5.3-codex), then a second prompt",
    turns: [
      respond([
        message("Checking sources.", "commentary"),
        webSearch("ai news"),
        message("Headlines: …", "final_answer"),
      ]),
      respond([message("Yesterday: …", "final_answer")]),
    ],
    prompts: ["What are the AI headlines today?", "And yesterday?"],
    status: "completed",
    text: "Yesterday: …",
    requests: 2,
  },
  {
    name: "OpenRouter data-only SSE, keep-alives, [DONE], msg_tmp_ id, then a second prompt",
    turns: [
      respond(
        [
          reasoning({ encrypted: `${blob("or")}.eyJlbmRwb2ludCI6Im9wZW5haSJ9`, status: true }),
          { type: "message", text: "Two bugs.", phase: "final_answer", id: "msg_tmp_tujkixbm9" },
        ],
        { framing: "data-only", keepAlives: 3, done: true, usage: { input: 9175, output: 277, cost: 0.025706 } },
      ),
      respond([message("Put differently: …", "final_answer")], { framing: "data-only", keepAlives: 1, done: true }),
    ],
    prompts: ["Find the memory-safety bugs in lookup().", "Now explain it differently."],
    status: "completed",
    text: "Put differently: …",
    requests: 2,
  },
  {
    name: "refusal",
    turns: [respond([refusal("I can't help with that.")])],
    prompts: ["hello"],
    status: "completed",
    text: "I can't help with that.",
    requests: 1,
  },
  {
    name: "incomplete (max_output_tokens)",
    turns: [respond([message("Hello,")], { incomplete: "max_output_tokens" })],
    prompts: ["hello"],
    status: "error",
    text: "Hello,",
    error: { code: "model_incomplete", reason: "max_output_tokens" },
    requests: 1,
  },
  {
    name: "stream error event insufficient_quota",
    turns: [errorEvent("insufficient_quota", "You exceeded your current quota")],
    prompts: ["hello"],
    status: "error",
    error: { code: "provider_error", providerCode: "insufficient_quota" },
    requests: 1,
  },
  {
    name: "HTTP 429 insufficient_quota",
    turns: [fail(429, { code: "insufficient_quota", message: "You exceeded your current quota" })],
    prompts: ["hello"],
    status: "error",
    error: { code: "provider_error", providerCode: "insufficient_quota" },
    requests: 1,
  },
  {
    name: "response.failed only",
    turns: [streamError("Request too large for gpt-4o-mini")],
    prompts: ["hello"],
    status: "error",
    error: { code: "provider_error", providerCode: "server_error" },
    requests: 1,
  },
];

/** Items the next request must carry: everything sent so far, less reasoning without encrypted content. */
function replayable(requests: FakeRequest[]): Record<string, unknown>[] {
  return requests
    .flatMap((r) => r.output)
    .filter((i) => i.type !== "reasoning" || typeof i.encrypted_content === "string");
}

/** Asserts that `input` holds `items` in order, each call followed (later) by its output, arguments byte for byte. */
function expectReplayed(request: FakeRequest, items: Record<string, unknown>[]): void {
  const input: any[] = request.body.input;
  let at = 0;
  for (const item of items) {
    const i = input.findIndex((x, k) => k >= at && JSON.stringify(x) === JSON.stringify(item));
    expect(i, `item ${JSON.stringify(item).slice(0, 120)} missing or out of order`).toBeGreaterThanOrEqual(at);
    at = i + 1;
    if (item.type === "function_call") {
      expect(input.slice(i).some((x) => x.type === "function_call_output" && x.call_id === item.call_id)).toBe(true);
      expect(request.raw).toContain(JSON.stringify(item.arguments));
    }
  }
}

let fake: FakeResponses;
let server: ServeProcess;

beforeAll(async () => {
  fake = await startFakeResponses();
  server = await startServe(join(tempDir(), "models.db"), ["--base-url", fake.url]);
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("recorded stream shapes through tsclaw serve", () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))("%s", async (_name, c, i) => {
    const first = fake.requests.length;
    fake.script(...c.turns);
    const bus = `case-${i}`;
    const start = await server.op("start_session", { sessionKey: bus, bus });
    expect(start.body.ok).toBe(true);
    let result: any;
    for (const message of c.prompts) {
      const r = await server.op("prompt", { sessionKey: bus, message });
      expect(r.body.ok).toBe(true);
      result = r.body.result;
    }
    expect(result.status).toBe(c.status);
    if (c.text !== undefined) expect(result.text).toBe(c.text);
    if (c.error) {
      expect(result.error.code).toBe(c.error.code);
      if (c.error.providerCode) expect(result.error.details.providerCode).toBe(c.error.providerCode);
      if (c.error.reason) expect(result.error.details.reason).toBe(c.error.reason);
    }
    const requests = fake.requests.slice(first);
    expect(requests).toHaveLength(c.requests);
    for (const r of requests) expect(r.body).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
    for (let k = 1; k < requests.length; k++) expectReplayed(requests[k]!, replayable(requests.slice(0, k)));

    const events = (await readAll(server, bus)).map((e) => e.payload);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("agent_start");
    expect(types.at(-1)).toBe("agent_end");
    expect(types.filter((t) => t === "agent_end")).toHaveLength(c.prompts.length);
    expect(types.filter((t) => t === "turn_start")).toHaveLength(c.requests);
    expect(types).not.toContain("retry");
    const ends = events.filter((e) => e.type === "tool_execution_end");
    expect(ends.map((e) => e.result.stdout)).toEqual(c.stdout ?? []);
    expect(events.at(-1)).toMatchObject({ status: c.status });
  });
});
