/** `tsclaw serve`: the long-lived process: HTTP (/do, /doc, SSE) and WebSocket on one port. */

import { resolve } from "node:path";
import { providerKeyStatus } from "../../src/agent/provider.js";
import { isProviderKeyVar } from "../../src/bash/env.js";
import type { Claw } from "../../src/claw/claw.js";
import { DEFAULTS } from "../../src/config/defaults.js";
import type { listenAddress } from "../../src/config/parsers.js";
import { displayDb, storeKind } from "../../src/config/store-url.js";
import { bindHttp } from "../http.js";
import { createAccessPolicy } from "../security.js";
import { defaultUiDir } from "../ui-static.js";
import { attachWebSocket } from "../ws-server.js";
import type { CommandLine } from "./flags.js";
import { flagsHelp } from "./help.js";
import { scrubLauncherSecrets, scrubOwnSecrets } from "./scrub-secrets.js";
import { checkTokenChoice, resolveServerToken, type TokenChoice } from "./server-token.js";
import { startClaw } from "./start-claw.js";

/** Help of `tsclaw serve`. */
export const SERVE_HELP = `Usage: tsclaw serve [flags]

Serves POST /do, GET /doc, GET /health, GET /bus/<name>/events (SSE), /ws (WebSocket), /mcp (MCP)
and the web dashboard at GET /ui.
SIGINT/SIGTERM shut it down cleanly (in-flight calls answered, runs marked interrupted).

Flags (each also from its environment variable):
${flagsHelp("serve")}`;

/**
 * Where the dashboard is. The token rides in the fragment (never sent to a server, never in a
 * log) and only on the start that generated it, the one time the token itself is printed.
 */
function uiLine(url: string, token: ReturnType<typeof resolveServerToken>, value: string): string {
  if (defaultUiDir() === undefined) return "not built (npm run build writes dist/ui)";
  if (token.generated) return `${url}/ui#token=${encodeURIComponent(value)}`;
  return `${url}/ui  (it asks for the token: ${token.hint})`;
}

/** Runs the server until SIGINT/SIGTERM; resolves with the exit code. */
export async function serve(cl: CommandLine): Promise<number> {
  const listen = cl.get<ReturnType<typeof listenAddress>>("listen") ?? { host: undefined, port: 8000 };
  const choice: TokenChoice = {
    file: cl.get<string>("token-file"),
    fileFrom: cl.given("token-file") ? "--token-file" : "CLAW_TOKEN_FILE",
    // --token and CLAW_TOKEN share a setting: only the flag itself is on the command line.
    flag: cl.given("token") ? cl.get<string>("token") : undefined,
    // Read directly: the table treats an empty variable as unset, but CLAW_TOKEN= must be refused.
    env: process.env.CLAW_TOKEN,
  };
  const clawOptions = cl.clawOptions();
  // A blank token, or none for a postgres:// database, fails before the port or the database is touched.
  checkTokenChoice(choice, clawOptions.db ?? DEFAULTS.db);
  const insecureLoopback = cl.get<boolean>("insecure-loopback") ?? false;
  const allowedOrigins = cl.get<string[]>("allow-origin") ?? [];
  const trustProxy = cl.get<string[]>("trust-proxy") ?? [];
  // The port first: a serve that cannot listen must not have created its database.
  let bound: Awaited<ReturnType<typeof bindHttp>>;
  try {
    bound = await bindHttp(listen);
  } catch (err) {
    throw new Error(`cannot listen on ${listen.host ?? "*"}:${listen.port}: ${(err as Error).message}`);
  }
  let claw: Claw;
  try {
    // A copy: the process's own environment block is blanked below, and getenv reads from it.
    claw = await startClaw({ ...clawOptions, url: bound.url, env: { ...process.env } });
  } catch (err) {
    await bound.close();
    throw err;
  }
  let serverToken: ReturnType<typeof resolveServerToken>;
  try {
    // After the database opened: the single-writer lock decided this process owns it.
    serverToken = resolveServerToken(choice, claw.config.db);
  } catch (err) {
    await claw.close();
    await bound.close();
    throw err;
  }
  const policy = createAccessPolicy({
    token: serverToken.token,
    tokenHint: serverToken.hint,
    insecureLoopback,
    allowedOrigins,
  });
  claw.serveAs({
    token: policy.token,
    secretFiles: serverToken.file === undefined ? [] : [serverToken.file],
    access: {
      tokenRequiredFrom: insecureLoopback ? "peers not on loopback" : "every peer",
      tokenHint: serverToken.hint,
    },
  });
  // Keys and token are read: take them out of /proc/<pid>/environ and cmdline.
  const isSecret = (name: string) => name === "CLAW_TOKEN" || isProviderKeyVar(name);
  const scrubbed = scrubOwnSecrets(isSecret, ["--token"]);
  const launcher = scrubLauncherSecrets(isSecret, ["--token"]); // npm's own process, under `npm start`
  const http = bound.attach(claw, {
    policy,
    trustProxy,
    mcp: { pollAfterMs: cl.get<number>("mcp-poll"), testTools: cl.get<boolean>("mcp-test-tools") ?? false },
  });
  const ws = attachWebSocket(claw, http.server, { policy });
  const c = claw.config;
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const where = `${listen.host ?? "all interfaces"}:${http.port}`;
  log(`tsclaw ${claw.identity.version} listening on ${http.url} (bound to ${where})`);
  log(`  db:       ${storeKind(c.db) === "postgres" ? displayDb(c.db) : c.db === ":memory:" ? c.db : resolve(c.db)}`);
  log(`  model:    ${c.model} via ${c.provider}${c.baseURL ? ` at ${c.baseURL}` : ""}`);
  log(`  key:      ${providerKeyStatus(c)}`);
  if (scrubbed.skipped) log(`  WARNING:  secrets stay readable in /proc/${process.pid}/environ: ${scrubbed.skipped}`);
  if (launcher?.skipped)
    log(
      `  WARNING:  secrets stay readable in /proc/${launcher.pid}/environ of npm (${launcher.skipped}); start with \`node dist/cli.js serve\` or \`--sandbox bwrap\` instead`,
    );
  const { node } = await claw.continuity.identity({});
  log(`  project:  ${c.project}   instance: ${claw.identity.instance}   node: ${node}`);
  log(`  token:    ${serverToken.banner}`);
  for (const w of serverToken.warnings) log(`  WARNING:  ${w}`);
  if (serverToken.file !== undefined && claw.sandbox === "none")
    log(
      `  WARNING:  bash runs without a sandbox: its scripts run as this user and can read ${serverToken.file}; use --sandbox bwrap (bubblewrap), or give the token with CLAW_TOKEN (no file)`,
    );
  if (insecureLoopback)
    log("  WARNING:  --insecure-loopback: any user or process on this machine may call this server without the token");
  if (allowedOrigins.length) log(`  origins:  same-origin and ${allowedOrigins.join(", ")}`);
  if (trustProxy.length)
    log(
      `  proxies:  ${trustProxy.join(", ")} (X-Forwarded-For names the peer for limits and logs, never for the token)`,
    );
  if (cl.get<boolean>("mcp-test-tools"))
    log("  mcp:      serving the test probe tool test_reconnection (--mcp-test-tools)");
  log(`  ui:       ${uiLine(http.url, serverToken, policy.token)}`);
  log(`  guide:    ${http.url}/doc`); // last: scripts and tests wait for this line

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log(`tsclaw: ${signal}: shutting down`);
      const closed = http.close(); // no new connections; silent and idle ones closed now
      await claw.close(); // calls in flight answer (shutting_down) while their sockets are open
      ws.close();
      await closed;
      resolve(0);
    };
    process.once("SIGINT", () => void stop("SIGINT"));
    process.once("SIGTERM", () => void stop("SIGTERM"));
    // npm does not forward SIGTERM/SIGINT to a script's process (`npm start`): when npm goes,
    // this process is re-parented, so shut down as if the signal had come.
    if (process.env.npm_lifecycle_event) {
      const parent = process.ppid;
      const watch = setInterval(() => {
        if (process.ppid === parent) return;
        clearInterval(watch);
        void stop("parent npm exited");
      }, 200);
      watch.unref();
    }
  });
}
