/**
 * `npm start` must not orphan the server (npm does not forward SIGTERM, so the server follows
 * npm), and npm's own process, which stays as the server's parent, must not keep the provider
 * key and the token readable in its /proc/<pid>/environ.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../adapters/cli-run.js";
import { tempDir } from "../helpers/claw.js";
import { waitProcessGone } from "../helpers/process.js";

function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

describe("npm start", () => {
  it("SIGTERM to npm stops the server it started; npm's environ holds no secret (real npm process tree)", async () => {
    expect(existsSync(join(ROOT, "dist/cli.js")), "npm run build first").toBe(true);
    const db = join(tempDir(), "npm.db");
    const npm = spawn("npm", ["start", "--", "--listen", "127.0.0.1:0", "--db", db, "--token", "npm-flag-token"], {
      cwd: ROOT,
      env: {
        ...process.env,
        OPENROUTER_API_KEY: "sk-or-npm-start-secret",
        CLAW_TOKEN: "npm-env-token", // the flag wins; the variable must still vanish
        CLAW_LISTEN: "",
        CLAW_DB: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    npm.stderr!.on("data", (c) => (err += c));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) {
          clearInterval(timer);
          resolve(m[1]!);
        }
      }, 20);
      npm.once("exit", () => {
        clearInterval(timer);
        reject(new Error(`npm exited before listening:\n${err}`));
      });
    });
    const server = childrenOf(npm.pid!).find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("cli.js"));
    expect(server, "the server is npm's child (the start script execs it)").toBeDefined();
    expect((await fetch(`${url}/health`)).status).toBe(200);
    for (const pid of [npm.pid!, server!]) {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      expect(environ).toContain("OPENROUTER_API_KEY="); // the name stays, the value is gone
      expect(environ).not.toContain("sk-or-npm-start-secret");
      expect(environ).not.toContain("npm-env-token");
      expect(readFileSync(`/proc/${pid}/cmdline`, "latin1")).not.toContain("npm-flag-token");
    }
    const ok = await fetch(`${url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer npm-flag-token" },
      body: JSON.stringify({ op: "server_identity" }),
    });
    expect(ok.status).toBe(200); // the server still holds the token it read
    expect(err).not.toMatch(/WARNING: +secrets stay readable/);
    expect(err).toMatch(/WARNING: +--token puts the token on the command line/);

    npm.kill("SIGTERM");
    expect(await waitProcessGone(server!, 15_000)).toBe(true);
    expect(await waitProcessGone(npm.pid!, 15_000)).toBe(true);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    expect(err).toMatch(/shutting down/);
  });
});
