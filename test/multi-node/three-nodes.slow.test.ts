/**
 * Three `tsclaw serve` processes ("nodes") on one real PostgreSQL database, as a load balancer
 * would spread clients over them: seqs stay contiguous and unique under concurrent writers on
 * every node, a subscriber on one node sees another node's events in order with no gap or
 * duplicate, check_task on one node wakes on a change made on another, racing completions
 * over the nodes have exactly one winner and one receipt, runs of one session never overlap
 * whichever node they were sent to, and a node killed -9 while it runs a task leaves it
 * `error`/`node_lost` once its lease lapses (and the bash it left on this machine is killed by
 * the nodes still alive). Latencies are printed, not asserted.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import {
  afterToolOutput,
  answer,
  bashThenAnswer,
  callBash,
  type FakeResponses,
  type FakeTurn,
  startFakeResponses,
} from "../fixtures/fake-responses.js";
import { pool } from "../helpers/fuzz.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";
import { pidsWithArg, waitProcessGone } from "../helpers/process.js";

const TOKEN = "three-nodes-shared-token-0123456789";
// Long enough that a live node is not taken for lost on a loaded machine. With 2 s, under the
// whole suite (three nodes, PostgreSQL and other test files on two cores), one of the 30
// round-robin run_tasks once ended node_lost 3 s in, no node having stopped: a 2 s lease is three
// heartbeats 667 ms apart, and a heartbeat waits for a connection of the pool the runs use.
// The kill -9 case waits about one lease.
const LEASE = "5s";

let pgServer: PgServer;
let db: string;
let fake: FakeResponses;
let nodes: ServeProcess[] = [];
const extra: ServeProcess[] = [];

function node(i: number): ServeProcess {
  return nodes[i % nodes.length]!;
}

async function ok(server: ServeProcess, op: string, args?: unknown): Promise<any> {
  const r = await server.op(op, args);
  if (!r.body.ok)
    throw new Error(
      `${op} on ${server.url}: ${JSON.stringify(r.body.error)}\nits stderr:\n${server.stderr().slice(-3000)}`,
    );
  return r.body.result;
}

/** Waits (vi.waitFor, at most `ms`) until `probe` returns something, and returns it. */
function eventually<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await probe();
      expect(v, what).toBeDefined();
      return v as T;
    },
    { timeout: ms, interval: 50 },
  );
}

/** The last user message of a Responses request: the prompt a run was started with. */
function promptOf(body: any): string {
  const items = Array.isArray(body.input) ? body.input : [];
  const users = items.filter((i: any) => i.role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : (content?.map((c: any) => c.text ?? "").join("") ?? "");
}

beforeAll(async () => {
  pgServer = await startPgServer();
  db = await createTestDatabase(pgServer.url);
  fake = await startFakeResponses();
  // All three start at once: the schema is created exactly once, under the advisory lock.
  nodes = await Promise.all(
    [0, 1, 2].map(() => startServe(db, ["--base-url", fake.url, "--lease", LEASE], { CLAW_TOKEN: TOKEN })),
  );
}, 120_000);

afterAll(async () => {
  for (const s of [...nodes, ...extra])
    if (s.child.exitCode === null && s.child.signalCode === null) await s.stop().catch(() => {});
  await fake?.close();
  await pgServer?.stop();
}, 60_000);

describe("three nodes on one PostgreSQL database", () => {
  it("each node has its own node id in server_identity, one shared instance, and list_nodes shows all three alive", async () => {
    const ids = await Promise.all(nodes.map((n) => ok(n, "server_identity")));
    expect(new Set(ids.map((i) => i.instance)).size).toBe(1);
    expect(new Set(ids.map((i) => i.node)).size).toBe(3);
    const listed = await ok(node(1), "list_nodes");
    const alive = listed.nodes.filter((n: any) => n.alive);
    expect(alive.map((n: any) => n.node).sort()).toEqual(ids.map((i) => i.node).sort());
    for (const n of alive) expect(nodes.map((s) => s.url)).toContain(n.url);
  });

  it("1 500 concurrent outs spread over the nodes get contiguous, unique seqs, and every node reads them all", async () => {
    const acks: { seq: number; i: number }[] = [];
    await pool(
      Array.from({ length: 1500 }, (_, i) => i),
      60,
      async (i) => {
        const ack = await ok(node(i), "out", { bus: "spread", payload: { i, from: i % 3 } });
        acks.push({ seq: ack.seq, i });
      },
    );
    expect(acks.map((a) => a.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 1500 }, (_, k) => k + 1));
    for (const reader of nodes) {
      const seen = new Map<number, number>();
      for (let after = 0; ; ) {
        const page = await ok(reader, "read", { bus: "spread", after, limit: 1000 });
        for (const e of page.events) seen.set(e.seq, e.payload.i);
        if (page.events.length === 0) break;
        after = page.next;
      }
      expect(seen.size).toBe(1500);
      for (const a of acks) expect(seen.get(a.seq)).toBe(a.i);
    }
  }, 90_000); // 1 500 HTTP calls to three processes: slow on a loaded machine

  it("a WebSocket subscriber on node B sees node A's events in order, no gap, no duplicate", async () => {
    const ws = new WebSocket(`${node(1).url.replace(/^http/, "ws")}/ws`, { headers: node(1).auth });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const got: { seq: number; at: number; sentAt: number }[] = [];
    ws.on("message", (data) => {
      const f = JSON.parse(data.toString());
      if (f.event === "bus" && f.bus === "live") got.push({ seq: f.seq, at: Date.now(), sentAt: f.payload.sentAt });
    });
    ws.send(JSON.stringify({ op: "subscribe", args: { bus: "live", after: 0 }, id: "s" }));
    await ok(node(0), "out", { bus: "live", payload: { sentAt: Date.now() } });
    await eventually(async () => (got.length >= 1 ? true : undefined), 10_000, "first live event");
    await pool(
      Array.from({ length: 299 }, (_, i) => i),
      10,
      async (i) => {
        await ok(node(i % 2 === 0 ? 0 : 2), "out", { bus: "live", payload: { sentAt: Date.now() } });
      },
    );
    await eventually(async () => (got.length >= 300 ? true : undefined), 15_000, "300 live events on node B");
    // Deliberately let time pass: a duplicate would arrive now (something that must not happen).
    await new Promise((r) => setTimeout(r, 300));
    ws.close();
    expect(got.map((g) => g.seq)).toEqual(Array.from({ length: 300 }, (_, k) => k + 1));
    const lat = got.map((g) => g.at - g.sentAt).sort((a, b) => a - b);
    console.log(`cross-node delivery: p50 ${lat[150]} ms, p99 ${lat[296]} ms (out on A/C → WS on B)`);
  });

  it("check_task waiting on node B wakes when node A completes the task", async () => {
    const identity = await ok(node(0), "server_identity");
    const t = await ok(node(0), "task_create", { title: "Cross-node", body: "wake me" });
    const started = Date.now();
    const waiting = ok(node(1), "check_task", { taskId: t.taskId, waitMs: 60_000 });
    // The wait is in place on B once it has counted the poll (it listens before it reads).
    await eventually(
      async () => ((await ok(node(2), "get_task", { taskId: t.taskId })).pollCount >= 1 ? true : undefined),
      10_000,
      "the wait on node B",
    );
    const doneAt = Date.now();
    await ok(node(0), "task_update", {
      taskId: t.taskId,
      expectedVersion: t.version,
      status: "done",
      handoff: { completed: "done on A", next: "nothing", blockers: "" },
      receipt: {
        sessionRef: "node-a/run-1",
        worker: "node A",
        work: "completed it",
        next: "nothing",
        blockers: "",
        tests: "none",
        gitCheckpoint: "none",
      },
      writeContext: { instance: identity.instance, project: t.project },
    });
    const checked = await waiting;
    expect(checked).toMatchObject({ isTerminal: true, continuePolling: false, task: { status: "done" } });
    expect(Date.now() - started).toBeLessThan(60_000); // woken, not timed out
    console.log(`cross-node check_task wake-up: ${Date.now() - doneAt} ms after the completion on A`);
  });

  it("20 racing completions spread over the three nodes: exactly one winner and one receipt", async () => {
    const identity = await ok(node(0), "server_identity");
    const t = await ok(node(2), "task_create", { title: "Contended across nodes" });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        node(i).op("task_update", {
          taskId: t.taskId,
          expectedVersion: t.version,
          status: "done",
          handoff: { completed: "raced", next: "none", blockers: "" },
          receipt: {
            sessionRef: `racer-${i}`,
            worker: `racer ${i}`,
            work: "raced",
            next: "none",
            blockers: "",
            tests: "none",
            gitCheckpoint: "none",
          },
          writeContext: { instance: identity.instance, project: t.project },
        }),
      ),
    );
    expect(responses.filter((r) => r.body.ok)).toHaveLength(1);
    expect(responses.filter((r) => !r.body.ok).map((r) => r.body.error.code)).toEqual(
      Array(19).fill("version_conflict"),
    );
    const back = await ok(node(1), "get_task", { taskId: t.taskId, include: ["receipts"] });
    expect(back.version).toBe(2);
    expect(back.receipts).toHaveLength(1);
  });

  it("30 run_tasks over 5 sessions sent round-robin run exactly once each, never two of one session at once", async () => {
    // Each run calls bash once: it notes its start and end on its session's bus (CLAW_BUS, with
    // the run's own scoped token, on its own node's CLAW_URL), sleeping between.
    const turn: FakeTurn = (request) => {
      if (afterToolOutput(request)) return answer("finished");
      const label = /run (\S+) of (\S+)/.exec(promptOf(request.body));
      if (!label) return answer("not a run of this test");
      const [, run, session] = label;
      const note = (what: string) =>
        `curl -sf -H "Authorization: Bearer $CLAW_TOKEN" -H 'content-type: application/json' -d '{"op":"out","args":{"bus":"'"$CLAW_BUS"'","payload":{"run":"${run}","session":"${session}","what":"${what}","node":"'"$CLAW_URL"'"}}}' "$CLAW_URL/do" >/dev/null`;
      return callBash({ script: `${note("start")}; sleep 0.15; ${note("end")}` });
    };
    fake.setDefault(turn);
    const sessions = ["s1", "s2", "s3", "s4", "s5"];
    const runs = Array.from({ length: 30 }, (_, i) => ({ run: `r${i}`, session: sessions[i % 5]! }));
    const created = await Promise.all(
      runs.map((r, i) =>
        ok(node(i), "run_task", { prompt: `run ${r.run} of ${r.session}`, sessionKey: `mn-${r.session}` }),
      ),
    );
    for (const t of created) {
      const done = await eventually(
        async () => {
          const c = await ok(node(0), "check_task", { taskId: t.taskId, waitMs: 5000 });
          return c.isTerminal ? c : undefined;
        },
        90_000,
        `task ${t.taskId}`,
      );
      expect(done.task.status, JSON.stringify(done.task.error)).toBe("completed");
    }
    fake.setDefault(answer("ok"));
    const notes: { run: string; session: string; what: string; node: string }[] = [];
    for (let after = 0; ; ) {
      const page = await ok(node(2), "read", { bus: "thebus", after, limit: 1000 });
      notes.push(...page.events.map((e: any) => e.payload).filter((p: any) => p?.what !== undefined && p.run));
      if (page.events.length === 0) break;
      after = page.next;
    }
    // Exactly once: one start and one end per run.
    for (const r of runs) {
      expect(
        notes.filter((n) => n.run === r.run && n.what === "start"),
        r.run,
      ).toHaveLength(1);
      expect(
        notes.filter((n) => n.run === r.run && n.what === "end"),
        r.run,
      ).toHaveLength(1);
    }
    // Never two at once in a session: in bus order, a session's start always follows its previous end.
    for (const s of sessions) {
      const mine = notes.filter((n) => n.session === s).map((n) => n.what);
      expect(mine).toEqual(Array.from({ length: 12 }, (_, k) => (k % 2 === 0 ? "start" : "end")));
    }
    const spread = new Set(notes.map((n) => n.node));
    expect(spread.size).toBe(3); // the runs really ran on all three nodes
  }, 150_000);

  it("a run on node A: get_state and list_sessions on B and C show it running, abort on B stops it on A", async () => {
    fake.setDefault(bashThenAnswer("sleep 60", "stopped early?"));
    const t = await ok(node(0), "run_task", { prompt: "sleep a minute", sessionKey: "mn-abort" });
    const running = await eventually(
      async () => {
        const s = await ok(node(1), "get_state", { sessionKey: "mn-abort" });
        return s.isRunning ? s : undefined;
      },
      20_000,
      "node B seeing the run",
    );
    expect(running).toMatchObject({ isRunning: true, running: "agent", currentTaskId: t.taskId });
    expect(running.currentRunId).toMatch(/^run_/);
    const active = await ok(node(2), "list_sessions", { active: true });
    expect(active.sessions.map((s: any) => s.sessionKey)).toContain("mn-abort");
    const page = await ok(node(2), "list_sessions", {});
    expect(page.sessions.find((s: any) => s.sessionKey === "mn-abort")?.isRunning).toBe(true);

    const asked = Date.now();
    expect(await ok(node(1), "abort", { sessionKey: "mn-abort" })).toEqual({ aborted: true });
    console.log(`cross-node abort answered after ${Date.now() - asked} ms`);
    // Answered once the run had stopped on A: no node sees it running any more.
    for (const i of [0, 1, 2])
      expect((await ok(node(i), "get_state", { sessionKey: "mn-abort" })).isRunning, `node ${i}`).toBe(false);
    const ended = await eventually(
      async () => {
        const got = await ok(node(2), "get_task", { taskId: t.taskId });
        return got.status === "in_progress" ? undefined : got;
      },
      10_000,
      "the task ending",
    );
    expect(ended.status).not.toBe("completed");
    expect(await ok(node(2), "abort", { sessionKey: "mn-abort" })).toEqual({ aborted: false });
    fake.setDefault(answer("ok"));
  }, 60_000);

  it("kill -9 of the node running a task: the task becomes error/node_lost within the lease, and the node shows not alive", async () => {
    const doomed = await startServe(db, ["--base-url", fake.url, "--lease", LEASE], { CLAW_TOKEN: TOKEN });
    extra.push(doomed);
    const doomedNode = (await ok(doomed, "server_identity")).node;
    fake.setDefault(bashThenAnswer("sleep 60.4321", "finished"));
    const t = await ok(doomed, "run_task", { prompt: "sleep a minute", sessionKey: "mn-doomed" });
    await eventually(
      async () => ((await ok(node(0), "get_task", { taskId: t.taskId })).status === "in_progress" ? true : undefined),
      20_000,
      "the task running",
    );
    const sleeps = await eventually(
      async () => (pidsWithArg("60.4321").length > 0 ? pidsWithArg("60.4321") : undefined),
      10_000,
      "the doomed node's bash",
    );
    const killedAt = Date.now();
    await doomed.kill9();
    const lost = await eventually(
      async () => {
        const got = await ok(node(1), "get_task", { taskId: t.taskId });
        return got.status === "error" ? got : undefined;
      },
      20_000,
      "node_lost",
    );
    expect(lost.error).toMatchObject({ code: "node_lost", category: "restart" });
    console.log(`node_lost after ${Date.now() - killedAt} ms (lease ${LEASE})`);
    const listed = await ok(node(2), "list_nodes");
    expect(listed.nodes.find((n: any) => n.node === doomedNode)?.alive ?? false).toBe(false);
    // Its bash outlived it; the nodes left on this machine kill it at their next heartbeat.
    for (const pid of sleeps) expect(await waitProcessGone(pid, 10_000), `bash ${pid} of the lost node`).toBe(true);
    fake.setDefault(answer("ok"));
    // The session is free again: a new run on it, sent to another node, runs to the end.
    const again = await ok(node(2), "run_task", { prompt: "say ok", sessionKey: "mn-doomed" });
    const done = await eventually(
      async () => {
        const c = await ok(node(2), "check_task", { taskId: again.taskId, waitMs: 5000 });
        return c.isTerminal ? c : undefined;
      },
      30_000,
      "the next run on the session",
    );
    expect(done.task.status).toBe("completed");
  }, 90_000);
});
