/**
 * `tsclaw serve` as a real child process for fault tests: started on 127.0.0.1:0, its URL read
 * from the "listening on http://…" line it prints on stderr, killed with SIGKILL or stopped with
 * SIGTERM. The CLI runs from the test suite's shared esbuild bundle of adapters/cli/index.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cleanEnv, cliCommand, ROOT } from "../adapters/cli-run.js";

/** A running serve process. */
export interface ServeProcess {
  child: ChildProcess;
  pid: number;
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The server token (from its token file, its flags, or the banner when generated in memory). */
  token: string;
  /** `{ authorization: "Bearer <token>" }` */
  auth: Record<string, string>;
  /** Everything printed on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** POSTs one envelope to /do; resolves with status and parsed body. */
  op(op: string, args?: unknown): Promise<{ status: number; body: any }>;
  /** SIGKILL, then waits for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM (clean shutdown), then waits for the exit; resolves with the code. */
  stop(): Promise<number | null>;
}

/** Starts a serve process on `db`; rejects with its stderr if it exits before listening. */
export async function startServe(
  db: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  options: SpawnOptions = {},
): Promise<ServeProcess> {
  const cli = [...(options.launcher ?? []), ...(await cliCommand())];
  const child = spawnServe(cli, db, extraArgs, env, options);
  let err = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in time; stderr:\n${err}`)), 20_000);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m && /^ {2}guide: /m.test(err)) {
        clearTimeout(timer);
        child.stderr!.off("data", onData);
        resolve(m[1]!);
      }
    };
    child.stderr!.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening; stderr:\n${err}`));
    });
  });
  const token = serverToken(db, extraArgs, env, err);
  const auth = { authorization: `Bearer ${token}` };
  const op = async (name: string, args?: unknown) => {
    const res = await fetch(`${url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify({ op: name, args, id: 1 }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return {
    child,
    pid: child.pid!,
    url,
    token,
    auth,
    stderr: () => err,
    exited,
    op,
    async kill9() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** The token a started serve uses, found the way a user would find it. */
function serverToken(db: string, extraArgs: string[], env: NodeJS.ProcessEnv, stderr: string): string {
  const flag = (name: string) => {
    const i = extraArgs.indexOf(name);
    return i >= 0 ? extraArgs[i + 1] : extraArgs.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const fromFile = (path: string) => readFileSync(resolve(ROOT, path), "utf8").trim();
  const file = flag("--token-file") ?? env.CLAW_TOKEN_FILE;
  if (file) return fromFile(file);
  const given = flag("--token") ?? env.CLAW_TOKEN;
  if (given) return given;
  const printed = /^ {2}token: +(\S+) {2}\(generated/m.exec(stderr);
  if (printed) return printed[1]!;
  return fromFile(`${db}.token`);
}

/** How to start the process. */
export interface SpawnOptions {
  /** Limit of open descriptors (`ulimit -n`), to make exhaustion reachable in a test. Default: inherited */
  nofile?: number;
  /** Command words put before node in startServe (e.g. `unshare --pid --fork`). Default: none */
  launcher?: string[];
}

/** Spawns serve without waiting (for processes expected to fail at startup). */
export function spawnServe(
  cli: string[],
  db: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  options: SpawnOptions = {},
): ChildProcess {
  // A caller may pick the address (a restart on the same port); otherwise any free port.
  const listen = extraArgs.includes("--listen") ? [] : ["--listen", "127.0.0.1:0"];
  const argv = [...cli, "serve", ...listen, "--db", db, "--project", "fault", ...extraArgs];
  // bash execs node, so the pid stays the server's.
  const [command, ...args] =
    options.nofile === undefined ? argv : ["bash", "-c", `ulimit -n ${options.nofile} && exec "$@"`, "serve", ...argv];
  return spawn(command!, args, {
    cwd: ROOT,
    env: { ...cleanEnv(), CLAW_LISTEN: "", CLAW_DB: "", OPENROUTER_API_KEY: "test-key", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
}

/** Reads every event of `bus` through /do `read`, page by page. */
export async function readAll(server: ServeProcess, bus: string): Promise<{ seq: number; payload: any }[]> {
  const out: { seq: number; payload: any }[] = [];
  let after = 0;
  for (;;) {
    const r = await server.op("read", { bus, after, limit: 1000 });
    if (!r.body.ok) throw new Error(`read failed: ${JSON.stringify(r.body)}`);
    if (r.body.result.events.length === 0) return out;
    for (const e of r.body.result.events) out.push({ seq: e.seq, payload: e.payload });
    after = r.body.result.next;
  }
}
