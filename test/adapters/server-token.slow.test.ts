/**
 * The server token of `tsclaw serve`, on real processes: refused when blank, generated into
 * `<db>.token` (0600) at the first start and reused, required from loopback peers too, read by
 * the CLI from beside the database, and `--insecure-loopback` as the printed opt-out.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeProcess, spawnServe, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";
import { cliCommand, runCli } from "./cli-run.js";

const servers: ServeProcess[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) if (s.child.exitCode === null) await s.stop();
});

async function serve(db: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const s = await startServe(db, args, env);
  servers.push(s);
  return s;
}

/** Runs a serve that must fail at startup; resolves with its exit code and stderr. */
async function failingServe(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  db = ":memory:",
): Promise<{ code: number | null; err: string }> {
  const child = spawnServe(await cliCommand(), db, args, env);
  let err = "";
  child.stderr!.on("data", (c) => (err += c));
  const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
  return { code, err };
}

const post = (url: string, headers: Record<string, string> = {}, path = "/do") =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ op: "list_buses", id: 1 }),
  });

describe("serve: the server token", () => {
  it("refuses an empty or blank token at startup (--token, --token-file, CLAW_TOKEN)", async () => {
    const dir = tempDir();
    const blankFile = join(dir, "blank");
    writeFileSync(blankFile, " \n");
    const cases = await Promise.all([
      failingServe(["--token", ""]),
      failingServe(["--token=   "]),
      failingServe(["--token-file", blankFile]),
      failingServe([], { CLAW_TOKEN: "" }),
      failingServe([], { CLAW_TOKEN: " \t" }),
    ]);
    for (const c of cases) {
      expect(c.code, c.err).toBe(1);
      expect(c.err).toMatch(/^tsclaw: the token from .* (is empty|must be printable)/m);
      expect(c.err).not.toContain("listening on");
    }
  });

  it("needs a given token with a postgres:// database (nodes share it), before the port or the database", async () => {
    // Nothing listens on port 9: had it tried to connect first, the error would be a connection one.
    const c = await failingServe([], {}, "postgres://claw@127.0.0.1:9/claw");
    expect(c.code, c.err).toBe(1);
    expect(c.err).toMatch(
      /^tsclaw: with a postgres:\/\/ database the token must be given, the same on every node: --token-file F or CLAW_TOKEN/m,
    );
    expect(c.err).not.toContain("listening on");
    const other = await failingServe([], {}, "mysql://claw@127.0.0.1:9/claw");
    expect(other.code, other.err).toBe(2);
    expect(other.err).toMatch(/mysql:\/\/ is not a database tsclaw can open/);
  });

  it("generates <db>.token (0600) at the first start, prints it once, reuses it later", async () => {
    const dir = tempDir();
    const db = join(dir, "claw.db");
    const first = await serve(db);
    const file = `${db}.token`;
    const token = readFileSync(file, "utf8").trim();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.stderr()).toContain(`token:    ${token}  (generated; saved in ${file}`);
    expect(first.token).toBe(token);
    await first.stop();

    const second = await serve(db);
    expect(second.token).toBe(token);
    expect(second.stderr()).toContain(`token:    in ${file}`);
    expect(second.stderr()).not.toContain(token);
    expect((await post(second.url, second.auth)).status).toBe(200);
  });

  it("asks loopback peers for the token too, never names its file, and keeps /health open", async () => {
    const dir = tempDir();
    const db = join(dir, "claw.db");
    const s = await serve(db);
    const none = await post(s.url);
    expect(none.status).toBe(401);
    const body = (await none.json()) as any;
    expect(body.error).toMatchObject({ code: "unauthorized", retryable: false });
    // Where the token is stays for those holding one (/doc): a 401 only says where to look.
    expect(body.error.message).not.toContain(`${db}.token`);
    expect(body.error.message).toContain("printed where its token is");
    expect((await post(s.url, { authorization: `Bearer ${s.token}x` })).status).toBe(401);
    expect((await post(s.url, { authorization: `Bearer ${s.token}` })).status).toBe(200);
    // A query token is for GET streams only: it would end up in logs and histories.
    expect((await post(s.url, {}, `/do?token=${s.token}`)).status).toBe(401);
    const sse = await fetch(`${s.url}/bus/x/events?token=${s.token}`);
    expect(sse.status).toBe(200);
    await sse.body!.cancel();
    const health = await fetch(`${s.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('{"ok":true}');
    const doc = await fetch(`${s.url}/doc`);
    expect(doc.status).toBe(401);
    expect(await doc.text()).not.toContain(`${db}.token`);
    const authorized = await fetch(`${s.url}/doc`, { headers: s.auth });
    expect(await authorized.text()).toContain(`${db}.token`); // the guide tells a token holder
  });

  it(":memory: keeps a generated token in memory only; a given one is never printed", async () => {
    const memory = await serve(":memory:");
    expect(memory.stderr()).toMatch(/token: {4}\S+ {2}\(generated for this run only/);
    expect((await post(memory.url, memory.auth)).status).toBe(200);

    const dir = tempDir();
    const file = join(dir, "tok");
    writeFileSync(file, "from-a-file\n", { mode: 0o600 });
    const fromFile = await serve(":memory:", ["--token-file", file]);
    expect(fromFile.token).toBe("from-a-file");
    expect(fromFile.stderr()).not.toContain("from-a-file");
    expect((await post(fromFile.url, { authorization: "Bearer from-a-file" })).status).toBe(200);
    const denied = (await (await post(fromFile.url)).json()) as any;
    expect(denied.error.message).not.toContain(file);

    const fromEnv = await serve(":memory:", [], { CLAW_TOKEN: "from-env" });
    expect(fromEnv.stderr()).not.toContain("from-env");
    // Named by its real source, with no warning about a command line it never was on.
    expect(fromEnv.stderr()).toMatch(/^ {2}token: {4}from CLAW_TOKEN$/m);
    expect(fromEnv.stderr()).not.toContain("--token puts the token on the command line");
    const fromFlag = await serve(":memory:", ["--token", "from-flag"]);
    expect(fromFlag.stderr()).toMatch(/^ {2}token: {4}from --token$/m);
    expect(fromFlag.stderr()).toContain("--token puts the token on the command line");
    expect((await post(fromEnv.url, { authorization: "Bearer from-env" })).status).toBe(200);
  }, 60_000);

  it("--insecure-loopback is the explicit, printed opt-out for loopback peers", async () => {
    const s = await serve(":memory:", ["--insecure-loopback"]);
    expect(s.stderr()).toMatch(/WARNING: +--insecure-loopback/);
    expect((await post(s.url)).status).toBe(200);
    expect((await post(s.url, { authorization: "Bearer wrong" })).status).toBe(401);
  });
});

describe("CLI clients: the token file beside the database", () => {
  it("do and tail read <db>.token for a loopback URL", async () => {
    const dir = tempDir();
    const db = join(dir, "claw.db");
    const s = await serve(db);
    const ok = await runCli(["do", "out", '{"bus":"tf","payload":1}', "--url", s.url, "--db", db]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ bus: "tf", seq: 1 });
    const viaEnv = await runCli(["tail", "tf", "--after", "0", "--count", "1", "--url", s.url], {
      env: { CLAW_DB: db },
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ seq: 1, payload: 1 });
    const elsewhere = await runCli(["do", "list_buses", "--url", s.url, "--db", join(dir, "other.db")]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/^tsclaw: unauthorized: .*no token sent: no .*other\.db\.token/);
  });
});

/** A host that is not a loopback name but reaches this machine: an external address, else a mapped one. */
function nonLoopbackHost(): string {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === "IPv4")?.address;
  return external ?? "[::ffff:127.0.0.1]";
}

describe("CLI clients: a token read from disk stays on this machine", () => {
  it("is not sent to a URL that is not loopback; an explicit one is", async () => {
    const dir = tempDir();
    const db = join(dir, "claw.db");
    writeFileSync(`${db}.token`, "disk-token\n", { mode: 0o600 });
    const seen: (string | undefined)[] = [];
    const capture = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: false, error: { code: "unauthorized", message: "no", retryable: false } }));
    });
    await new Promise<void>((r) => capture.listen(0, "::", r));
    const port = (capture.address() as AddressInfo).port;
    try {
      const url = `http://${nonLoopbackHost()}:${port}`;
      const r = await runCli(["do", "list_buses", "--url", url, "--db", db]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/no token sent: .*claw\.db\.token is sent only to loopback URLs/);
      const explicit = await runCli(["do", "list_buses", "--url", url], { env: { CLAW_TOKEN: "given" } });
      expect(explicit.code).toBe(1);
      const local = await runCli(["do", "list_buses", "--url", `http://127.0.0.1:${port}`, "--db", db]);
      expect(local.code).toBe(1);
      expect(seen).toEqual([undefined, "Bearer given", "Bearer disk-token"]);
    } finally {
      capture.close();
    }
  });
});
