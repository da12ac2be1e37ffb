/**
 * kill -9 of `tsclaw serve` while a task runs (the fake model made the agent call bash
 * `sleep 30`): after a restart on the same file the task reads error/interrupted and check_task
 * returns it as terminal at once.
 */
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { callBash, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { pidFromFile, waitProcessGone } from "../helpers/process.js";
import { type ServeProcess, startServe } from "./serve-process.js";

let fake: FakeResponses | undefined;
let servers: ServeProcess[] = [];
let orphanGroup: number | undefined;

afterEach(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) await s.kill9();
  servers = [];
  // A killed server cannot clean up its bash: the sleep's process group is ours to end.
  if (orphanGroup !== undefined) {
    try {
      process.kill(-orphanGroup, "SIGKILL");
    } catch {
      // already gone
    }
    orphanGroup = undefined;
  }
  await fake?.close();
  fake = undefined;
});

test("a task running when serve is killed -9 reads error/interrupted after restart, and check_task is terminal", async () => {
  fake = await startFakeResponses();
  const dir = tempDir("tsclaw-fault-");
  const db = join(dir, "claw.db");
  const marker = join(dir, "bash.pid");
  // $$ is the bash of the tool call: the leader of the process group the server made for it.
  fake.script(callBash({ script: `echo $$ > ${marker}; sleep 30` }));
  const server = await startServe(db, ["--base-url", fake.url]);
  servers.push(server);

  const run = await server.op("run_task", { prompt: "sleep for a while", sessionKey: "doomed" });
  expect(run.body).toMatchObject({
    ok: true,
    result: { status: expect.stringMatching(/^(todo|in_progress)$/), continuePolling: true },
  });
  const taskId = run.body.result.taskId as string;
  orphanGroup = await pidFromFile(marker, 20_000);
  const during = await server.op("get_task", { taskId });
  expect(during.body.result.status).toBe("in_progress");

  await server.kill9();

  const restarted = await startServe(db, ["--base-url", fake.url]);
  servers.push(restarted);
  const got = await restarted.op("get_task", { taskId });
  expect(got.body.result).toMatchObject({ status: "error", error: { code: "interrupted", category: "restart" } });
  expect(got.body.result.endedAt).toEqual(expect.any(Number));

  const t0 = Date.now();
  const checked = await restarted.op("check_task", { taskId, waitMs: 20_000 });
  expect(checked.body.result).toMatchObject({
    isTerminal: true,
    continuePolling: false,
    nextAction: null,
    task: { status: "error" },
  });
  expect(Date.now() - t0).toBeLessThan(10_000); // terminal: no wait at all
  expect(fake.requests.length).toBe(1); // nothing re-ran the task

  // The orphaned sleep is ended by the test, not left behind.
  process.kill(-orphanGroup, "SIGKILL");
  expect(await waitProcessGone(orphanGroup)).toBe(true);
  orphanGroup = undefined;
}, 60_000);
