/** `tsclaw serve`: the long-lived process: HTTP (/do, /doc, SSE) and WebSocket on one port. */

import { providerKeyStatus } from "../../src/agent/provider.js";
import { createClaw } from "../../src/claw.js";
import { listenHttp } from "../http.js";
import { createAccessPolicy } from "../security.js";
import { attachWebSocket } from "../ws-server.js";
import { flagOrEnv, type ParsedArgs, parseListen } from "./args.js";
import { CLAW_FLAGS_HELP, clawOptionsFromFlags } from "./claw-flags.js";

export const SERVE_HELP = `Usage: tsclaw serve [flags]

Serves POST /do, GET /doc, GET /health, GET /bus/<name>/events (SSE) and /ws (WebSocket).

Flags (each also from an environment variable):
  --listen ADDR          [host]:port; ":8000" binds all interfaces      CLAW_LISTEN   (default :8000)
  --token T              require this bearer token from every peer     CLAW_TOKEN    (default: generated; loopback free)
  --allow-origin LIST    comma-separated Origins allowed besides same-origin, e.g. http://localhost:5173   CLAW_ALLOW_ORIGIN
${CLAW_FLAGS_HELP}`;

/** Runs the server until SIGINT/SIGTERM; resolves with the exit code. */
export async function serve(args: ParsedArgs): Promise<number> {
  const { host, port } = parseListen(flagOrEnv(args, "listen") ?? ":8000");
  const token = flagOrEnv(args, "token");
  const allowedOrigins = (flagOrEnv(args, "allow-origin") ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of allowedOrigins) {
    if (!/^https?:\/\/[^/]+$/.test(o))
      throw new Error(
        `--allow-origin "${o}" is not an origin like http://localhost:5173 (scheme://host[:port], no path)`,
      );
  }
  const policy = createAccessPolicy({ token, allowedOrigins });
  const claw = createClaw({ ...clawOptionsFromFlags(args), token: policy.token });
  let http: Awaited<ReturnType<typeof listenHttp>>;
  try {
    http = await listenHttp(claw, { host, port, policy });
  } catch (err) {
    await claw.close();
    throw new Error(`cannot listen on ${host ?? "*"}:${port}: ${(err as Error).message}`);
  }
  const ws = attachWebSocket(claw, http.server, { policy });
  // Bash started by agents finds its way back here.
  (claw.config as { url?: string }).url = http.url;
  const c = claw.config;
  const log = (s: string) => process.stderr.write(`${s}\n`);
  log(`tsclaw ${claw.identity.version} listening on ${http.url} (bound to ${host ?? "all interfaces"}:${http.port})`);
  log(`  db:       ${c.db === ":memory:" ? c.db : claw.services.db.name}`);
  log(`  model:    ${c.model} via ${c.provider}${c.baseURL ? ` at ${c.baseURL}` : ""}`);
  log(`  key:      ${providerKeyStatus(c)}`);
  log(`  project:  ${c.project}   instance: ${claw.identity.instance}`);
  if (token) log("  token:    required from every peer (--token)");
  else log(`  token:    ${policy.token}  (required from non-loopback peers; pass --token to fix one)`);
  if (allowedOrigins.length) log(`  origins:  same-origin and ${allowedOrigins.join(", ")}`);
  log(`  guide:    ${http.url}/doc`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log(`tsclaw: ${signal}: shutting down`);
      ws.close();
      const closed = http.close();
      await claw.close();
      await closed;
      resolve(0);
    };
    process.once("SIGINT", () => void stop("SIGINT"));
    process.once("SIGTERM", () => void stop("SIGTERM"));
  });
}
