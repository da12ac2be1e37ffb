/**
 * A running tool call's output reaches the session's bus as it arrives (`tool_output`), before
 * the call's result, and a chatty command publishes a bounded amount of it.
 */
import { describe, expect, it } from "vitest";
import { LIVE_OUTPUT_MAX_CHARS } from "../../src/agent/live-output.js";
import { memClaw } from "../helpers/claw.js";

type Payload = { type: string; callId?: string; stream?: string; text?: string; truncated?: boolean };

async function runAndCollect(script: string): Promise<Payload[]> {
  // The demo model runs the command between backticks: a real run, no model server.
  const claw = memClaw({ provider: "demo" });
  try {
    const s = await claw.session.start({ sessionKey: "live", bus: "live" });
    await s.prompt({ message: `run \`${script}\`` });
    const page = await claw.bus.read({ bus: "live", after: 0, limit: 1000 });
    return page.events.map((e) => e.payload as Payload);
  } finally {
    await claw.close();
  }
}

describe("live tool output", () => {
  it("arrives in pieces while the command runs, before its result", async () => {
    const events = await runAndCollect("for i in 1 2 3; do echo line$i; sleep 0.3; done; echo oops >&2");
    const types = events.map((e) => e.type);
    const outputs = events.filter((e) => e.type === "tool_output");
    expect(outputs.filter((e) => e.stream === "stdout").length).toBeGreaterThanOrEqual(2); // 300 ms apart
    expect(
      outputs
        .filter((e) => e.stream === "stdout")
        .map((e) => e.text)
        .join(""),
    ).toBe("line1\nline2\nline3\n");
    expect(outputs.find((e) => e.stream === "stderr")?.text).toBe("oops\n");
    const start = events.find((e) => e.type === "tool_execution_start")!;
    for (const o of outputs) expect(o.callId).toBe(start.callId);
    expect(types.lastIndexOf("tool_output")).toBeLessThan(types.indexOf("tool_execution_end"));
    expect(types.indexOf("tool_output")).toBeGreaterThan(types.indexOf("tool_execution_start"));
  });

  it("publishes at most its cap of a chatty command, and says it was cut", async () => {
    const events = await runAndCollect("head -c 300000 /dev/zero | tr '\\\\0' x");
    const outputs = events.filter((e) => e.type === "tool_output");
    expect(outputs.map((e) => e.text).join("").length).toBe(LIVE_OUTPUT_MAX_CHARS);
    expect(outputs.at(-1)!.truncated).toBe(true);
    expect(outputs.length).toBeLessThan(50);
  });
});
