/** `tsclaw mcp --url`: stdio relayed to a running server's /mcp, with the token from CLAW_TOKEN or the token file. */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliCommand } from "../adapters/cli-run.js";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";
import { envelopeOf, stdioMcpClient } from "./clients.js";

let serve: ServeProcess;
let db: string;
beforeAll(async () => {
  db = join(tempDir("tsclaw-mcp-relay-"), "claw.db");
  serve = await startServe(db); // generates <db>.token
}, 60_000);
afterAll(async () => {
  await serve?.stop();
});

async function relay(args: string[], env: Record<string, string>) {
  const [node, ...cli] = await cliCommand();
  return stdioMcpClient(node!, [...cli, "mcp", "--url", serve.url, ...args], {
    ...(process.env as Record<string, string>),
    CLAW_URL: "",
    CLAW_TOKEN: "",
    ...env,
  });
}

describe("tsclaw mcp --url", () => {
  it("relays with the token file of --db (a loopback URL)", async () => {
    const { client } = await relay(["--db", db], {});
    try {
      const ack = envelopeOf(
        (await client.callTool({ name: "out", arguments: { bus: "relay", payload: 1 } })) as never,
      );
      expect(ack.result).toMatchObject({ bus: "relay", seq: 1 });
      const read = envelopeOf((await client.callTool({ name: "read", arguments: { bus: "relay" } })) as never);
      expect(read.result.events.map((e: { payload: unknown }) => e.payload)).toEqual([1]);
      // the same server: /do sees what the relayed call wrote
      const token = (await import("node:fs")).readFileSync(`${db}.token`, "utf8").trim();
      const res = await fetch(`${serve.url}/do`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ op: "read", args: { bus: "relay" } }),
      });
      expect(((await res.json()) as { result: { lastSeq: number } }).result.lastSeq).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("relays with CLAW_TOKEN, and a wrong token fails the connection", async () => {
    const token = (await import("node:fs")).readFileSync(`${db}.token`, "utf8").trim();
    const { client } = await relay([], { CLAW_TOKEN: token });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("run_task");
    } finally {
      await client.close();
    }
    await expect(relay([], { CLAW_TOKEN: "wrong-token" })).rejects.toThrow();
  });
});
