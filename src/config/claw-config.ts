/**
 * createClaw options and the resolved configuration every service reads. Values come from the
 * options, else the CLAW_* variables of the config table, else the defaults.
 */

import { basename } from "node:path";
import { ClawError } from "../core/errors.js";
import { NO_APPROVAL } from "./approval-policy.js";
import type { ClawConfig, ClawLimits, ClawOptions } from "./claw-options.js";
import { DEFAULTS } from "./defaults.js";
import { checkProjectName } from "./project-name.js";
import { SETTINGS } from "./settings.js";

export type {
  AccessFacts,
  ClawConfig,
  ClawLimits,
  ClawOptions,
  Durability,
  ModelRetryOptions,
  SandboxMode,
} from "./claw-options.js";

/** Default provider. */
export const DEFAULT_PROVIDER = DEFAULTS.provider;
/** Default model of the default provider. */
export const DEFAULT_MODEL = defaultModelOf(DEFAULT_PROVIDER);

/** The model used for `provider` when none is given (`openai` → "gpt-5"). */
export function defaultModelOf(provider: string): string {
  return DEFAULTS.providerModels[provider] ?? DEFAULTS.providerModels[DEFAULTS.provider]!;
}

/**
 * createClaw options from the CLAW_* variables of the config table (`CLAW_MODEL`,
 * `CLAW_MAX_BASH`, …), so a program and `serve` read the same environment. A value that does not
 * parse throws `invalid_args` naming the variable.
 */
export function optionsFromEnv(env: NodeJS.ProcessEnv): ClawOptions {
  let options: ClawOptions = {};
  for (const s of SETTINGS) {
    const raw = s.env ? env[s.env] : undefined;
    if (!s.option || raw === undefined || raw === "") continue;
    let value: unknown;
    try {
      value = s.parse(raw, s.env!);
    } catch (err) {
      throw new ClawError("invalid_args", (err as Error).message, { variable: s.env });
    }
    options = mergeOptions(options, s.option(value));
  }
  return options;
}

/** `over` on top of `base`, one level deep for the nested groups (limits, retention, modelRetry). */
export function mergeOptions(base: ClawOptions, over: ClawOptions): ClawOptions {
  const merged: ClawOptions = { ...base };
  for (const [key, value] of Object.entries(over) as [keyof ClawOptions, unknown][]) {
    if (value === undefined) continue;
    const prev = base[key];
    const nested = typeof value === "object" && value !== null && typeof prev === "object" && key !== "env";
    (merged as Record<string, unknown>)[key] = nested ? { ...prev, ...value } : value;
  }
  return merged;
}

/** Every limit name (a Record, so a new ClawLimits field that is missing here fails to compile); each one's default is the same-named entry of DEFAULTS. */
const LIMIT_KEYS = Object.keys({
  maxPayloadBytes: true,
  maxBashProcesses: true,
  bashOutputBytes: true,
  bashKillGraceMs: true,
  maxEventsPerCall: true,
  maxRequestBytes: true,
  maxSubscriptions: true,
  maxConnections: true,
  maxConnectionsPerPeer: true,
  headerTimeoutMs: true,
  idleTimeoutMs: true,
  maxCallsPerConnection: true,
  maxSchedules: true,
  scheduleHistory: true,
} satisfies Record<keyof ClawLimits, true>) as (keyof ClawLimits)[];

/** Every limit: the given value, else its default. */
function limitsWithDefaults(given: ClawLimits): Required<ClawLimits> {
  const out = {} as Required<ClawLimits>;
  for (const key of LIMIT_KEYS) out[key] = given[key] ?? DEFAULTS[key];
  return out;
}

/** Applies the CLAW_* variables of `options.env` (default process.env) under `options`, then the defaults. */
export function resolveConfig(given: ClawOptions = {}): ClawConfig {
  const env = given.env ?? process.env;
  const options = mergeOptions(optionsFromEnv(env), given);
  const provider = options.provider ?? DEFAULTS.provider;
  return {
    db: options.db ?? DEFAULTS.db,
    model: options.model ?? defaultModelOf(provider),
    provider,
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    project: options.project === undefined ? basename(process.cwd()) || "default" : checkProjectName(options.project),
    name: options.name ?? DEFAULTS.name,
    durability: options.durability ?? DEFAULTS.durability,
    sandbox: options.sandbox ?? DEFAULTS.sandbox,
    env,
    url: options.url,
    token: options.token,
    access: options.access,
    secretFiles: options.secretFiles,
    limits: limitsWithDefaults(options.limits ?? {}),
    retention: options.retention ?? {},
    maxTurns: options.maxTurns ?? DEFAULTS.maxTurns,
    approval: options.approval ?? NO_APPROVAL,
    leaseMs: options.leaseMs ?? DEFAULTS.leaseMs,
    modelRetry: { ...DEFAULTS.modelRetry, ...options.modelRetry },
    validateOutputs: options.validateOutputs ?? false,
    log: options.log ?? ((line) => process.stderr.write(line.endsWith("\n") ? line : `${line}\n`)),
  };
}
