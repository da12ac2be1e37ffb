/** createClaw options, their defaults, and the resolved configuration every service reads. */
import { basename } from "node:path";
import type { RetentionOptions } from "./bus/bus-service.js";
import type { Durability } from "./store/db.js";

/** Limits; each has a default and a clear error when passed. */
export interface ClawLimits {
  /** Max size of one bus payload's JSON, in bytes. Default: 1 MiB. */
  maxPayloadBytes?: number;
  /** Max bash processes at once (`too_many_requests` beyond). Default: 32. */
  maxBashProcesses?: number;
  /** Captured bytes of stdout and of stderr per bash run (the tail is kept). Default: 1 MiB. */
  bashOutputBytes?: number;
  /** Milliseconds between SIGTERM and SIGKILL when bash is killed. Default: 1000. */
  bashKillGraceMs?: number;
  /** Max request body / WebSocket message / stdio line, in bytes. Default: 10 MiB. */
  maxRequestBytes?: number;
  /** Max subscriptions per WebSocket or stdio connection. Default: 64. */
  maxSubscriptions?: number;
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

/** Options of {@link createClaw}. Every one is optional. */
export interface ClawOptions {
  /** SQLite file, or ":memory:". Default: "./claw.db" */
  db?: string;
  /** Default model of new sessions. Default: "openai/gpt-5:online" */
  model?: string;
  /** Default provider: "openrouter" or "openai". Default: "openrouter" */
  provider?: string;
  /** Base URL of a Responses-compatible server. Default: the provider's (OpenRouter: https://openrouter.ai/api/v1) */
  baseURL?: string;
  /** API key; overrides the provider's variable (OPENROUTER_API_KEY, OPENAI_API_KEY). Default: from env */
  apiKey?: string;
  /** Project tasks and memory belong to by default. Default: the current directory's name */
  project?: string;
  /** Human name of this instance (server_identity). Default: "tsclaw" */
  name?: string;
  /** "normal" (WAL + synchronous=NORMAL: a process crash loses nothing acknowledged) or "full" (power loss too). Default: "normal" */
  durability?: Durability;
  /** Environment for key lookup and for bash processes to inherit. Default: process.env */
  env?: NodeJS.ProcessEnv;
  /** URL of this service, given to bash as CLAW_URL (set by `serve`). Default: none */
  url?: string;
  /** Token given to bash as CLAW_TOKEN (set by `serve`). Default: none */
  token?: string;
  /** Limits. */
  limits?: ClawLimits;
  /** Bus retention. Default: keep everything */
  retention?: RetentionOptions;
  /** Max model turns per run before it ends as an error. Default: 100 */
  maxTurns?: number;
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
  env: NodeJS.ProcessEnv;
  url?: string;
  token?: string;
  limits: Required<ClawLimits>;
  retention: RetentionOptions;
  maxTurns: number;
  modelRetry: Required<ModelRetryOptions>;
  validateOutputs: boolean;
  log: (line: string) => void;
}

/** Default model. */
export const DEFAULT_MODEL = "openai/gpt-5:online";
/** Default provider. */
export const DEFAULT_PROVIDER = "openrouter";

/** Applies defaults. */
export function resolveConfig(options: ClawOptions = {}): ClawConfig {
  const limits = options.limits ?? {};
  return {
    db: options.db ?? "./claw.db",
    model: options.model ?? DEFAULT_MODEL,
    provider: options.provider ?? DEFAULT_PROVIDER,
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    project: options.project ?? (basename(process.cwd()) || "default"),
    name: options.name ?? "tsclaw",
    durability: options.durability ?? "normal",
    env: options.env ?? process.env,
    url: options.url,
    token: options.token,
    limits: {
      maxPayloadBytes: limits.maxPayloadBytes ?? 1024 * 1024,
      maxBashProcesses: limits.maxBashProcesses ?? 32,
      bashOutputBytes: limits.bashOutputBytes ?? 1024 * 1024,
      bashKillGraceMs: limits.bashKillGraceMs ?? 1000,
      maxRequestBytes: limits.maxRequestBytes ?? 10 * 1024 * 1024,
      maxSubscriptions: limits.maxSubscriptions ?? 64,
    },
    retention: options.retention ?? {},
    maxTurns: options.maxTurns ?? 100,
    modelRetry: { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 30_000, ...options.modelRetry },
    validateOutputs: options.validateOutputs ?? false,
    log: options.log ?? ((line) => process.stderr.write(line.endsWith("\n") ? line : `${line}\n`)),
  };
}
