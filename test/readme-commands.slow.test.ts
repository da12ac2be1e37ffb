/**
 * Every command of the README runs as written: its shell blocks run in bash, in order, against
 * a real `tsclaw serve` started by the README's own serve line (in a fresh directory, as a
 * newcomer with no API key would), and its TypeScript blocks run with tsx. A block preceded by
 * `<!-- readme-commands: skip (why) -->` is not run (it must say why). Needs the built dist/.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { cleanEnv, ROOT } from "./adapters/cli-run.js";
import { tempDir } from "./helpers/claw.js";
import { freePort } from "./helpers/pg-server.js";

const run = promisify(execFile);

interface Block {
  lang: string;
  code: string;
  skip?: string;
}

/** The fenced blocks of a Markdown text, with the skip reason of the comment right before each. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const re = /(?:<!-- readme-commands: skip \(([^)]+)\) -->\n)?```(\w*)\n([\s\S]*?)```/g;
  for (const m of markdown.matchAll(re)) blocks.push({ lang: m[2]!, code: m[3]!, skip: m[1] });
  return blocks;
}

/** Shell commands of a block, continuation lines joined. */
function commandsOf(code: string): string[] {
  return code
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

const README = readFileSync(`${ROOT}README.md`, "utf8");
const blocks = fencedBlocks(README);
const work = tempDir("tsclaw-readme-");
const servers: ChildProcess[] = [];
afterAll(() => {
  for (const s of servers) if (s.exitCode === null) s.kill("SIGTERM");
});

/** `npm link`, as it ends up: a `tsclaw` on PATH that runs this checkout's dist/cli.js. */
function linkedBin(): string {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { bin: Record<string, string> };
  expect(pkg.bin.tsclaw).toBe("dist/cli.js");
  expect(existsSync(`${ROOT}dist/cli.js`), "run npm run build first").toBe(true);
  const bin = join(work, ".bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "tsclaw"), `#!/bin/sh\nexec node ${ROOT}dist/cli.js "$@"\n`);
  chmodSync(join(bin, "tsclaw"), 0o755);
  return bin;
}

/** Starts the README's serve line in `work` on a free loopback port; resolves with its URL. */
async function startServer(line: string, env: NodeJS.ProcessEnv): Promise<string> {
  const port = await freePort();
  const child = spawn("bash", ["-c", `exec ${line} --listen 127.0.0.1:${port}`], {
    cwd: work,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  servers.push(child);
  let err = "";
  child.stderr!.on("data", (c) => (err += c));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", () => {
      if (err.includes("guide:")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`${line} exited with ${code}:\n${err}`)));
  });
  // What the quickstart promises the server prints.
  expect(err).toContain("claw.db.token");
  expect(err).toMatch(/ui: +http:\/\/127\.0\.0\.1:\d+\/ui#token=/);
  expect(err).toContain("demo");
  return `http://127.0.0.1:${port}`;
}

describe("the README's commands, as written", () => {
  it("every block is run or says why not", () => {
    const shell = blocks.filter((b) => b.lang === "sh");
    expect(shell.length).toBeGreaterThanOrEqual(3);
    for (const b of blocks) expect(["sh", "ts"], b.code).toContain(b.lang);
  });

  it("the quickstart, the shell blocks and the TypeScript blocks run against a keyless server", async () => {
    const env: NodeJS.ProcessEnv = { ...cleanEnv(), PATH: `${linkedBin()}:${process.env.PATH}` };
    for (const k of Object.keys(env)) if (k.endsWith("_API_KEY") || k.startsWith("CLAW_")) delete env[k];
    let url: string | undefined;
    let ran = 0;
    for (const block of blocks.filter((b) => b.lang === "sh" && !b.skip)) {
      const script: string[] = [];
      for (const command of commandsOf(block.code)) {
        if (command.startsWith("npm install")) continue; // this checkout is installed
        if (command.startsWith("npm link")) continue; // linkedBin() put tsclaw on PATH
        if (/^tsclaw serve\b/.test(command.replace(/\s+#.*$/, ""))) {
          url = await startServer(command.replace(/\s+#.*$/, ""), env);
          continue;
        }
        script.push(command);
      }
      if (script.length === 0) continue;
      expect(url, "a block before the server started").toBeDefined();
      const port = new URL(url!).port;
      // The README's address is :8000; this test's server has a port of its own.
      const text = script.join("\n").replaceAll("localhost:8000", `localhost:${port}`);
      const { stdout } = await run("bash", ["-c", `set -euo pipefail\n${text}`], {
        cwd: work,
        env: { ...env, CLAW_URL: url },
        maxBuffer: 16 << 20,
      });
      ran++;
      if (/tsclaw do check_task/.test(text)) {
        // The quickstart ends with a completed prompt and a completed task.
        expect(stdout).toContain("Demo model (no LLM)");
        expect(stdout.match(/"status": ?"completed"/g)?.length, stdout).toBeGreaterThanOrEqual(2);
      }
      if (/"op":"out"/.test(text)) expect(stdout).toContain('"ok":true');
      if (/\/doc\?section=server/.test(text)) expect(stdout).toContain("demo"); // the keyless server says so
    }
    expect(ran).toBeGreaterThanOrEqual(2);

    // The TypeScript blocks: saved in the checkout (where "tsclaw" resolves to the package itself).
    for (const [i, block] of blocks.filter((b) => b.lang === "ts" && !b.skip).entries()) {
      const file = `${ROOT}.readme-snippet-${process.pid}-${i}.mts`;
      writeFileSync(file, block.code);
      try {
        const { stdout } = await run(process.execPath, [`${ROOT}node_modules/tsx/dist/cli.mjs`, file], {
          cwd: work,
          env,
        });
        expect(stdout).toContain("completed");
      } finally {
        rmSync(file, { force: true });
      }
    }
  }, 240_000);
});
