/**
 * Acknowledged means durable, with real `tsclaw serve` processes killed with SIGKILL: a steer
 * acknowledged during a tool call survives the kill and is delivered exactly once in the next
 * run; a prompt stored while a compaction ran runs after the restart, exactly once.
 */
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { answer, callBash, type FakeResponses, stall, startFakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { pidFromFile } from "../helpers/process.js";
import { WAIT } from "../helpers/wait.js";
import { inputText } from "./helpers.js";

let fake: FakeResponses | undefined;
let servers: ServeProcess[] = [];
let orphanGroup: number | undefined;

afterEach(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) await s.kill9();
  servers = [];
  if (orphanGroup !== undefined) {
    try {
      process.kill(-orphanGroup, "SIGKILL"); // a killed server cannot end its bash
    } catch {
      // already gone
    }
    orphanGroup = undefined;
  }
  await fake?.close();
  fake = undefined;
});

async function serve(db: string): Promise<ServeProcess> {
  const s = await startServe(db, ["--base-url", fake!.url]);
  servers.push(s);
  return s;
}

const userTexts = async (s: ServeProcess, sessionKey: string) =>
  ((await s.op("get_messages", { sessionKey })).body.result.messages as any[])
    .filter((m) => m.role === "user")
    .map((m) => m.text);

test("a steer acknowledged before a kill -9 is delivered exactly once in the next run", async () => {
  fake = await startFakeResponses();
  const dir = tempDir("tsclaw-durable-");
  const db = join(dir, "claw.db");
  const pidFile = join(dir, "pid");
  const first = await serve(db);
  await first.op("start_session", { sessionKey: "steer" });
  fake.script(callBash({ script: `echo $$ > ${pidFile}; exec sleep 30` }));
  void first.op("prompt", { sessionKey: "steer", message: "go" }).catch(() => {});
  orphanGroup = await pidFromFile(pidFile, 20_000);
  const ack = await first.op("steer", { sessionKey: "steer", message: "S1" });
  expect(ack.body).toMatchObject({ ok: true, result: { queued: true, pending: 1, running: true } });
  await first.kill9();

  const second = await serve(db);
  const state = (await second.op("get_state", { sessionKey: "steer" })).body.result;
  expect(state).toMatchObject({ isRunning: false, pending: { steering: 1, followUp: 0, prompts: 0 } });
  fake.script(answer("resumed"));
  const r = await second.op("prompt", { sessionKey: "steer", message: "continue" });
  expect(r.body.result).toMatchObject({ status: "completed", text: "resumed" });
  const input = fake.requests.at(-1)!.body.input;
  // The call cut by the kill is answered as interrupted; the steer follows the new prompt, once.
  expect(input.map((i: any) => i.type)).toEqual([
    "message",
    "function_call",
    "function_call_output",
    "message",
    "message",
  ]);
  expect(JSON.parse(input[2].output)).toMatchObject({ error: { code: "interrupted" } });
  expect(input.map(inputText).filter((t: string) => t === "S1")).toHaveLength(1);
  expect(await userTexts(second, "steer")).toEqual(["go", "continue", "S1"]);
  expect((await second.op("get_state", { sessionKey: "steer" })).body.result.pending.steering).toBe(0);
}, 60_000); // two serve processes and a kill -9: slow on a loaded machine

test("a prompt stored during a compaction runs after a kill -9 and restart, exactly once", async () => {
  fake = await startFakeResponses();
  const db = join(tempDir("tsclaw-durable-"), "claw.db");
  const first = await serve(db);
  await first.op("start_session", { sessionKey: "compacting" });
  fake.script(answer("A1"));
  await first.op("prompt", { sessionKey: "compacting", message: "Q1" });
  fake.script(stall("SUMM"));
  void first.op("compact", { sessionKey: "compacting" }).catch(() => {});
  await fake.waitForRequests(2);
  void first.op("prompt", { sessionKey: "compacting", message: "Q2" }).catch(() => {});
  await vi.waitFor(
    async () => expect((await first.op("get_state", { sessionKey: "compacting" })).body.result.pending.prompts).toBe(1),
    WAIT,
  );
  await first.kill9();

  fake.script(answer("A2"));
  const second = await serve(db);
  await vi.waitFor(async () => expect(await userTexts(second, "compacting")).toContain("Q2"), {
    ...WAIT,
    timeout: 20_000,
  });
  await vi.waitFor(
    async () => expect((await second.op("get_state", { sessionKey: "compacting" })).body.result.isRunning).toBe(false),
    WAIT,
  );
  const input = fake.requests.at(-1)!.body.input.map(inputText);
  expect(input).toEqual(["Q1", "A1", "Q2"]); // the compaction never stored a summary
  expect(await userTexts(second, "compacting")).toEqual(["Q1", "Q2"]);
  expect((await second.op("get_last_assistant_text", { sessionKey: "compacting" })).body.result.text).toBe("A2");
  expect(fake.requests).toHaveLength(3);
  const state = (await second.op("get_state", { sessionKey: "compacting" })).body.result;
  expect(state).toMatchObject({ pending: { prompts: 0 }, queuedRuns: 0 });
}, 60_000);
