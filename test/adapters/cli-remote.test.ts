/**
 * Which URLs the CLI's client commands (do, tail, mcp) send the token file's token to: only a
 * URL naming this machine for certain (localhost, 127.0.0.0/8, ::1), never `*.localhost`, which
 * the system resolver may send to DNS.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CommandLine } from "../../adapters/cli/flags.js";
import { isLoopbackUrl, remoteOf } from "../../adapters/cli/remote.js";

/** A command line with just these flags. */
function commandLine(flags: Record<string, string>): CommandLine {
  return {
    get: <T>(flag: string) => flags[flag] as T | undefined,
    given: (flag: string) => flag in flags, // as if every value came on the command line
  } as CommandLine;
}

describe("the token file's token goes to loopback URLs only", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsclaw-remote-"));
  const db = join(dir, "claw.db");
  writeFileSync(`${db}.token`, "disk-token\n", { mode: 0o600 });

  it.each([
    "http://localhost:8000",
    "http://LOCALHOST:8000",
    "http://127.0.0.1:8000",
    "http://127.1.2.3:8000",
    "http://127.1:8000",
    "http://[::1]:8000",
  ])("sent to %s", (url) => {
    expect(isLoopbackUrl(url)).toBe(true);
    expect(remoteOf(commandLine({ url, db })).headers.authorization).toBe("Bearer disk-token");
  });

  it.each([
    "http://evil.localhost:8000",
    "http://localhost.evil.example:8000",
    "http://localhost.:8000",
    "http://128.0.0.1:8000",
    "http://[::2]:8000",
    "http://example.com",
    "not a url",
  ])("not sent to %s", (url) => {
    const remote = remoteOf(commandLine({ url, db }));
    expect(remote.headers.authorization).toBeUndefined();
    expect(remote.authNote).toMatch(/sent only to loopback URLs/);
    expect(isLoopbackUrl(url)).toBe(false);
  });

  it("an explicit token goes wherever the user points it", () => {
    const remote = remoteOf(commandLine({ url: "http://evil.localhost:8000", token: "given", db }));
    expect(remote.headers.authorization).toBe("Bearer given");
  });
});
