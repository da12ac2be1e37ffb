/**
 * Nodes with real `tsclaw serve` processes on one SQLite file: a serve lists itself with its URL;
 * after `kill -9` the next serve on the file lists the dead node as not alive once its lease has
 * passed, and a serve stopped with SIGTERM removes itself. `--lease` is refused out of range.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spawnCli } from "../adapters/cli-run.js";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) await s.kill9();
});

async function serve(db: string, args: string[] = []): Promise<ServeProcess> {
  const s = await startServe(db, ["--lease", "1s", ...args]);
  running.push(s);
  return s;
}

async function nodesOf(s: ServeProcess) {
  const r = await s.op("list_nodes", {});
  expect(r.body.ok).toBe(true);
  return r.body.result.nodes as { node: string; url: string | null; alive: boolean; lastHeartbeat: number }[];
}

describe("nodes under serve", () => {
  it("lists itself with its URL; a killed node is listed not alive after its lease; a stopped one is gone", async () => {
    const db = join(tempDir("tsclaw-nodes-"), "claw.db");
    const a = await serve(db);
    const aNode = (await a.op("server_identity")).body.result.node as string;
    expect(a.stderr()).toContain(`node: ${aNode}`);
    expect(await nodesOf(a)).toEqual([expect.objectContaining({ node: aNode, url: a.url, alive: true })]);
    await a.kill9();

    const b = await serve(db);
    const bNode = (await b.op("server_identity")).body.result.node as string;
    expect(bNode).not.toBe(aNode);
    const nodes = await vi.waitFor(
      async () => {
        const listed = await nodesOf(b);
        expect(listed[0]?.alive, "the killed node's liveness").toBe(false);
        return listed;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(nodes).toEqual([
      expect.objectContaining({ node: aNode, url: a.url, alive: false }),
      expect.objectContaining({ node: bNode, url: b.url, alive: true }),
    ]);
    expect(await b.stop()).toBe(0);

    const c = await serve(db);
    const cNode = (await c.op("server_identity")).body.result.node as string;
    expect((await nodesOf(c)).map((n) => [n.node, n.alive])).toEqual([
      [aNode, false],
      [cNode, true],
    ]);
  });

  it("refuses --lease outside 1s to 1h before opening the database", async () => {
    const dir = tempDir("tsclaw-nodes-");
    const cli = await spawnCli(["serve", "--listen", "127.0.0.1:0", "--db", join(dir, "claw.db"), "--lease", "100ms"]);
    expect(await cli.exited).toBe(2);
    expect(cli.err()).toContain('--lease must be a Go duration between 1s and 1h such as "15s" or "1m", not "100ms"');
    expect(existsSync(join(dir, "claw.db"))).toBe(false);
  });
});
