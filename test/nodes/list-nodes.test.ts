/**
 * list_nodes and server_identity's `node` through the typed API (locally and through a real
 * server in the "remote" project): the answering node is listed, alive, and its heartbeat
 * advances every third of its lease. An invalid lease is refused before anything opens.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Claw, createClaw } from "../../src/index.js";
import { apiClaw } from "../helpers/claw.js";

let claw: Claw | undefined;
afterEach(async () => {
  await claw?.close();
  claw = undefined;
});

describe("list_nodes", () => {
  it("lists the node that answers, alive, with the id server_identity names", async () => {
    claw = await apiClaw();
    const identity = await claw.continuity.identity({});
    expect(identity.node).toMatch(/^[0-9a-f-]{36}$/);
    expect(identity.node).not.toBe(identity.instance);
    const { nodes } = await claw.continuity.nodes({});
    expect(nodes).toHaveLength(1);
    const [self] = nodes;
    expect(self).toMatchObject({ node: identity.node, alive: true });
    expect(self!.startedAt).toBe(claw.services.nodes.startedAt);
    expect(self!.lastHeartbeat).toBeGreaterThanOrEqual(self!.startedAt);
    expect(self!.url).toBe(claw.services.config.url ?? null);
  });

  it("renews the heartbeat every third of the lease", async () => {
    claw = await apiClaw({ leaseMs: 1000 });
    const first = (await claw.continuity.nodes({})).nodes[0]!.lastHeartbeat;
    await vi.waitFor(
      async () => expect((await claw!.continuity.nodes({})).nodes[0]!.lastHeartbeat).toBeGreaterThan(first),
      { timeout: 10_000, interval: 50 },
    );
    expect((await claw.continuity.nodes({})).nodes[0]!.alive).toBe(true);
  });

  it("two claws get two node ids; a node that closes leaves the list", async () => {
    claw = await apiClaw();
    const other = await apiClaw();
    const a = (await claw.continuity.identity({})).node;
    const b = (await other.continuity.identity({})).node;
    expect(a).not.toBe(b);
    await other.close();
    expect((await claw.continuity.nodes({})).nodes.map((n) => n.node)).toEqual([a]);
  });

  it("refuses a lease outside 1s to 1h, from the option and from CLAW_LEASE", () => {
    for (const leaseMs of [999, 3_600_001, 1500.5, Number.NaN])
      expect(() => createClaw({ db: ":memory:", leaseMs, env: {} })).toThrow(
        expect.objectContaining({
          code: "invalid_args",
          message: expect.stringContaining("leaseMs must be between 1s and 1h"),
        }),
      );
    for (const value of ["500ms", "2h", "soon", "0"])
      expect(() => createClaw({ db: ":memory:", env: { CLAW_LEASE: value } })).toThrow(
        expect.objectContaining({
          code: "invalid_args",
          message: expect.stringContaining(`CLAW_LEASE must be a Go duration between 1s and 1h`),
        }),
      );
    const ok = createClaw({ db: ":memory:", env: { CLAW_LEASE: "2m" } });
    expect(ok.config.leaseMs).toBe(120_000);
    expect(ok.services.nodes.leaseMs).toBe(120_000);
    return ok.close();
  });
});
