/**
 * SIGTERM on a real `serve`: a call cut short by the shutdown answers `shutting_down` (503,
 * retryable), never `cancelled`; a connection that never sent a byte is closed at once, while a
 * request still being uploaded is answered.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";
import { pidFromFile } from "../helpers/process.js";
import { bodyOf, openRaw, statusOf } from "../helpers/raw-http.js";
import { WAIT } from "../helpers/wait.js";

let server: ServeProcess | undefined;
afterEach(async () => {
  if (server?.child.exitCode === null) await server.kill9();
  server = undefined;
});

/** Waits on a serve process: up to 30 s (the tests' own timeout is 60 s). */
const SERVED = { ...WAIT, timeout: 30_000 };

describe("shutdown", () => {
  it("bash in flight at SIGTERM answers shutting_down 503, retryable", async () => {
    server = await startServe(":memory:");
    const pidFile = join(tempDir(), "pid");
    const call = server.op("bash", { script: `echo $$ > ${pidFile}; sleep 60` });
    await pidFromFile(pidFile, 30_000);
    const exited = server.stop();
    const r = await call;
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: "shutting_down", retryable: true });
    expect(await exited).toBe(0);
  }, 60_000);

  it("closes a connection that never sent a byte at once; a request mid-upload still gets its answer", async () => {
    server = await startServe(":memory:");
    const port = Number(new URL(server.url).port);
    const silent = await openRaw(port);
    const upload = await openRaw(port);
    const body = JSON.stringify({ op: "list_buses", id: 7 });
    upload.socket.write(
      `POST /do HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, 5)}`,
    );
    await vi.waitFor(() => expect(upload.received()).toMatch(/^HTTP\/1\.1 100 Continue/), SERVED); // the server has the headers
    const exited = server.stop();
    await silent.closed;
    expect(silent.received()).toBe("");
    // The server is still waiting for the upload it began answering: finish it.
    expect(upload.socket.destroyed).toBe(false);
    upload.socket.write(body.slice(5));
    await vi.waitFor(() => expect(upload.received()).toContain("\r\n\r\n{"), SERVED);
    const final = upload.received().replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "");
    expect([200, 503]).toContain(statusOf(final));
    const answer = JSON.parse(bodyOf(final));
    expect(answer.id).toBe(7);
    if (!answer.ok) expect(answer.error).toMatchObject({ code: "shutting_down", retryable: true });
    expect(await exited).toBe(0);
  }, 60_000);
});
