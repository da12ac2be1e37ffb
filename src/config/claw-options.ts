/**
 * The types of createClaw's options and of the resolved configuration, apart from their
 * resolution (claw-config.ts) so that the settings tables and the services below the
 * composition root can name them without importing the resolver.
 */

import type { ApprovalPolicy } from "./approval-policy.js";
import type { RetentionOptions } from "./retention.js";

/** What the caller asks for as bash's sandbox. */
export type SandboxMode = "auto" | "bwrap" | "landlock" | "none";
/** The sandbox modes, for flag parsing and docs. */
export const SANDBOX_MODES = ["auto", "bwrap", "landlock", "none"] as const satisfies readonly SandboxMode[];

/** How hard a SQLite commit is made durable. */
export type Durability = "normal" | "full";

/** Limits; each has a default and a clear error when passed. */
export interface ClawLimits {
  /** Max size of one bus payload's JSON, in bytes. Default: 1 MiB. */
  maxPayloadBytes?: number;
  /** Max bash processes at once (`too_many_requests` beyond). Default: 32. */
  maxBashProcesses?: number;
  /** Captured bytes of stdout and of stderr per bash run (the tail is kept). Default: 1 MiB. */
  bashOutputBytes?: number;
  /** Milliseconds between SIGTERM and SIGKILL when bash is killed (0–5000). Default: 1000. */
  bashKillGraceMs?: number;
  /** Max line events one bash call publishes (later lines: `eventsDropped`). Default: 100 000. */
  maxEventsPerCall?: number;
  /** Max request body / WebSocket message / stdio line, in bytes. Default: 10 MiB. */
  maxRequestBytes?: number;
  /** Max subscriptions per WebSocket or stdio connection. Default: 64. */
  maxSubscriptions?: number;
  /** Open connections of the HTTP server in total; more are refused before any work. Default: 10 000, fewer when the descriptor limit is lower. */
  maxConnections?: number;
  /** Open connections from one remote peer address, counted once authenticated (an IPv6 /64 counts as one; loopback peers count only against the total). Default: 256. */
  maxConnectionsPerPeer?: number;
  /** Milliseconds a connection may take to send a request's headers. Default: 10 000. */
  headerTimeoutMs?: number;
  /** Milliseconds a keep-alive connection may sit idle between requests. Default: 65 000. */
  idleTimeoutMs?: number;
  /** Calls in flight on one WebSocket connection (`too_many_requests` beyond). Default: 1024. */
  maxCallsPerConnection?: number;
  /** Schedules on the database (`limit_reached` beyond). Default: 10 000. */
  maxSchedules?: number;
  /** Firings kept per schedule (the newest; older ones are deleted). Default: 1 000. */
  scheduleHistory?: number;
}

/** Retry policy of model calls (429, 5xx, network errors; never 401/403). */
export interface ModelRetryOptions {
  /** Retries after the first attempt. Default: 4 */
  maxRetries?: number;
  /** First backoff; doubles each retry (with jitter). Default: 1000 ms */
  baseDelayMs?: number;
  /** Cap of one wait, Retry-After included. Default: 30000 ms */
  maxDelayMs?: number;
}

/** How peers of a server authenticate, for the guide. */
export interface AccessFacts {
  /** Who must send `Authorization: Bearer <token>`. */
  tokenRequiredFrom: "every peer" | "peers not on loopback";
  /** Where a client finds the token, as a clause ("the token is in /srv/claw.db.token"). */
  tokenHint: string;
}

/** Options of {@link createClaw}. Every one is optional. */
export interface ClawOptions {
  /** SQLite file, ":memory:", or a postgres:// URL (several nodes may share one). Default: CLAW_DB, else "./claw.db" */
  db?: string;
  /** Default model of new sessions. Default: CLAW_MODEL, else the provider's ("openai/gpt-5:online" on openrouter, "gpt-5" on openai) */
  model?: string;
  /** Default provider: "openrouter" or "openai". Default: CLAW_MODEL_PROVIDER, else "openrouter" */
  provider?: string;
  /** Base URL of a Responses-compatible server. Default: CLAW_BASE_URL, else the provider's (OpenRouter: https://openrouter.ai/api/v1) */
  baseURL?: string;
  /** API key; overrides the provider's variable (OPENROUTER_API_KEY, OPENAI_API_KEY). Default: from env */
  apiKey?: string;
  /** Project tasks and memory belong to by default, 1–256 characters. Default: the current directory's name */
  project?: string;
  /** Human name of this instance (server_identity). Default: "tsclaw" */
  name?: string;
  /** "normal" (WAL + synchronous=NORMAL: a process crash loses nothing acknowledged) or "full" (power loss too). Default: "normal" */
  durability?: Durability;
  /** Sandbox of bash calls: "auto" (bwrap when it works on this host, else none), "bwrap", "landlock" (unavailable: refused), "none". Default: CLAW_SANDBOX, else "auto" */
  sandbox?: SandboxMode;
  /** Environment for CLAW_* settings, key lookup and for bash processes to inherit. Default: process.env */
  env?: NodeJS.ProcessEnv;
  /** URL of this service, given to bash as CLAW_URL (set by `serve`). Default: none */
  url?: string;
  /** The server's token (set by `serve`); bash never gets it: each run or call gets a scoped token. Default: none */
  token?: string;
  /** Who must send a token and where it is, as the guide states it (set by `serve`). Default: no listener, no token */
  access?: AccessFacts;
  /**
   * Files no bash script may read (`serve` names its token file): under the bwrap sandbox each
   * is an empty file in the script's view; without a sandbox a script runs as this process's
   * user and can read them. Default: none
   */
  secretFiles?: readonly string[];
  /** Limits. */
  limits?: ClawLimits;
  /** Bus retention. Default: keep everything */
  retention?: RetentionOptions;
  /** Max model turns per run before it ends as an error. Default: 100 */
  maxTurns?: number;
  /** Approval policy of the agent\'s bash calls in sessions and tasks that set none. Default: `{mode: "never"}` */
  approval?: ApprovalPolicy;
  /** This node's lease in ms (1 000 to 3 600 000): it heartbeats every third of it; silent for longer, it is not alive. Default: CLAW_LEASE, else 15 000 */
  leaseMs?: number;
  /** Retries of model calls on 429/5xx/network errors. Default: 4 retries, backoff from 1 s doubling, each wait capped at 30 s */
  modelRetry?: ModelRetryOptions;
  /** Validate every operation's result against its output schema (for tests). Default: false */
  validateOutputs?: boolean;
  /** Where diagnostic lines go (never stdout). Default: process.stderr */
  log?: (line: string) => void;
}

/** Configuration with every default applied. */
export interface ClawConfig {
  db: string;
  model: string;
  provider: string;
  baseURL?: string;
  apiKey?: string;
  project: string;
  name: string;
  durability: Durability;
  sandbox: SandboxMode;
  env: NodeJS.ProcessEnv;
  url?: string;
  token?: string;
  access?: AccessFacts;
  secretFiles?: readonly string[];
  limits: Required<ClawLimits>;
  retention: RetentionOptions;
  maxTurns: number;
  approval: ApprovalPolicy;
  leaseMs: number;
  modelRetry: Required<ModelRetryOptions>;
  validateOutputs: boolean;
  log: (line: string) => void;
}
