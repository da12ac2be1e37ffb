/**
 * What the guide says about the server it is served by: its defaults, limits and access, taken
 * from the running configuration, and the placeholders the prose sections use for them.
 */
import { keyVarOf } from "../agent/provider.js";
import type { ClawConfig } from "../config/claw-config.js";
import { DEFAULTS, formatBytes } from "../config/defaults.js";

/** The part of the configuration the guide describes. */
export type GuideConfig = Pick<
  ClawConfig,
  | "model"
  | "provider"
  | "baseURL"
  | "apiKey"
  | "env"
  | "project"
  | "limits"
  | "maxTurns"
  | "url"
  | "access"
  | "retention"
>;

/** Values the prose sections refer to as `{NAME}`. */
export function guideVars(config: GuideConfig): Record<string, string> {
  return {
    URL: config.url ?? DEFAULTS.url,
    MAX_PAYLOAD: formatBytes(config.limits.maxPayloadBytes),
    MAX_REQUEST: formatBytes(config.limits.maxRequestBytes),
    BASH_OUTPUT: formatBytes(config.limits.bashOutputBytes),
    MAX_BASH: String(config.limits.maxBashProcesses),
    MAX_SUBSCRIPTIONS: String(config.limits.maxSubscriptions),
    MAX_TURNS: String(config.maxTurns),
    MODEL: config.model,
    PROVIDER: config.provider,
    BUS: DEFAULTS.bus,
    SSE_RETRY_MS: String(DEFAULTS.sseRetryMs),
    SSE_HEARTBEAT_S: String(DEFAULTS.sseHeartbeatMs / 1000),
    AUTH_LINE: authLine(config),
  };
}

function authLine(config: GuideConfig): string {
  const a = config.access;
  if (!a) return "this process has no HTTP listener of its own (in-process or stdio calls need no token).";
  return `this server needs \`Authorization: Bearer <token>\` from ${a.tokenRequiredFrom}; ${a.tokenHint}.`;
}

/** Replaces every `{NAME}` of `vars` in `text`. */
export function fillVars(text: string, vars: Record<string, string>): string {
  return text.replace(/\{([A-Z_]+)\}/g, (whole, name: string) => vars[name] ?? whole);
}

/** The "This server" section: defaults, key, limits and access of the running configuration. */
export function serverSection(config: GuideConfig): string {
  const keyVar = keyVarOf(config.provider);
  const key =
    config.provider === "demo"
      ? "none needed: `demo` is the built-in offline stand-in (no LLM; it runs one bash command per prompt)"
      : config.apiKey
        ? "given to the server directly"
        : config.env[keyVar]
          ? `\`${keyVar}\` is set`
          : `\`${keyVar}\` is not set: \`prompt\`, \`run_task\` and \`compact\` fail with \`provider_auth_missing\` until it is. Without a key, pass \`"provider": "demo"\` to \`start_session\` or \`run_task\`, or restart the server with \`--model-provider demo\`: the built-in demo model (offline, no LLM) runs one bash command per prompt`;
  const l = config.limits;
  const retention = [
    config.retention.maxEvents !== undefined && `the newest ${config.retention.maxEvents} events per bus`,
    config.retention.maxAgeMs !== undefined && `events younger than ${config.retention.maxAgeMs / 1000} s`,
  ].filter(Boolean);
  return `## This server

- Default model of new sessions and tasks: \`${config.model}\` via \`${config.provider}\`${config.baseURL ? ` at ${config.baseURL}` : ""}; \`start_session\` and \`run_task\` may name another (\`model\`, \`provider\`). API key: ${key}.
- Default project: \`${config.project}\`. Address: ${config.url ?? "none (not served over HTTP)"}.
- Access: ${authLine(config)}
- Limits: event payload ${formatBytes(l.maxPayloadBytes)}; request body, WebSocket message and stdio line ${formatBytes(l.maxRequestBytes)}; ${l.maxBashProcesses} bash processes at once; captured bash stdout and stderr ${formatBytes(l.bashOutputBytes)} each; ${l.maxSubscriptions} subscriptions per connection; ${config.maxTurns} model turns per run (then \`turn_limit\`).
- Bus retention: ${retention.length > 0 ? `keeps ${retention.join(" and ")}` : "keeps every event until `trim_bus`"}.
`;
}
