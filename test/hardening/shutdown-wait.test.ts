/**
 * A wait in flight when the server shuts down answers `shutting_down` (503, retryable), like
 * every other call cut short by shutdown: a long-polling `read` does not answer 200 with nothing,
 * which a client would take for "no events" and not retry. `cancel_call` still makes a read
 * return what it has. Real HTTP server, in process.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("waits cut short by shutdown", () => {
  it("a read long poll in flight at shutdown answers shutting_down 503, retryable", async () => {
    server = await startServer(memClaw());
    const callId = "c_read_at_shutdown_1";
    const read = server.post({ op: "read", args: { bus: "quiet", waitMs: 60_000 }, id: 1, callId });
    await vi.waitFor(() => expect(server!.claw.services.calls.has(callId)).toBe(true));
    const closed = server.close();
    server = undefined;
    const r = await read;
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ id: 1, ok: false, error: { code: "shutting_down", retryable: true } });
    await closed;
  });

  it("a read whose wait cancel_call ends still answers its page (the caller asked it to stop)", async () => {
    server = await startServer(memClaw());
    const callId = "c_read_cancelled_1";
    const read = server.post({ op: "read", args: { bus: "quiet", waitMs: 60_000 }, id: 1, callId });
    await vi.waitFor(() => expect(server!.claw.services.calls.has(callId)).toBe(true));
    expect((await server.op("cancel_call", { callId })).result).toEqual({ cancelled: true });
    const r = await read;
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ bus: "quiet", events: [] });
  });
});
