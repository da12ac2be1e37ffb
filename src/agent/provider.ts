/** Provider configuration: base URL and API key variable per provider, and the key lookup. */
import OpenAI from "openai";
import { DEFAULTS } from "../config/defaults.js";
import { ClawError } from "../core/errors.js";
import { demoFetch } from "./demo-model.js";
import { ModelFetch } from "./model-fetch.js";

/** A provider's defaults. */
export interface ProviderInfo {
  baseURL: string;
  keyVar: string;
  /**
   * True when the provider requires the `id` of every replayed `function_call` item (OpenRouter
   * documents it as required). Otherwise (OpenAI) a call whose reasoning item is not replayed is
   * sent without its id: OpenAI refuses an `fc_…` id without the reasoning item it came with.
   * Default: false
   */
  callIdsRequired?: boolean;
}

/** Known providers. Any Responses-compatible server works through the claw's own `baseURL`. */
export const PROVIDERS: Record<string, ProviderInfo> = {
  openrouter: { baseURL: "https://openrouter.ai/api/v1", keyVar: "OPENROUTER_API_KEY", callIdsRequired: true },
  openai: { baseURL: "https://api.openai.com/v1", keyVar: "OPENAI_API_KEY" },
  /** The built-in demo model (demo-model.ts): no key, no network. */
  demo: { baseURL: "http://demo.invalid/v1", keyVar: "" },
};

/** The settings that decide which providers exist for this claw. */
export interface ProviderConfig {
  provider: string;
  model: string;
  baseURL?: string;
  apiKey?: string;
  env: NodeJS.ProcessEnv;
  /** Set when the claw is served: a missing key is then fixed on that server. */
  url?: string;
}

/** The model a session of `provider` uses when it names none. */
export function defaultModelFor(config: ProviderConfig, provider: string): string {
  if (provider === config.provider) return config.model;
  return DEFAULTS.providerModels[provider] ?? config.model;
}

/** The variable holding the configured provider's key (an unknown name: `<NAME>_API_KEY`). */
export function keyVarOf(provider: string): string {
  return PROVIDERS[provider]?.keyVar ?? `${provider.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`;
}

/**
 * Throws `invalid_args` unless `provider` is known or the one the claw was configured with. The
 * answer never depends on the environment, so it tells a client nothing about which variables
 * exist, and no client can make the server read another `<NAME>_API_KEY`.
 */
export function checkKnownProvider(config: ProviderConfig, provider: string): void {
  if (provider === config.provider || Object.hasOwn(PROVIDERS, provider)) return;
  const known = [...new Set([...Object.keys(PROVIDERS), config.provider])].join(", ");
  throw new ClawError("invalid_args", `unknown provider ${provider}: use one of ${known}`, {
    issues: [{ path: "provider", message: `unknown provider; use one of ${known}` }],
  });
}

/** The key a run of `provider` uses here, if any: the claw's own for its provider, else the environment's. */
function keyOf(config: ProviderConfig, provider: string): string | undefined {
  return (provider === config.provider ? config.apiKey : undefined) ?? config.env[keyVarOf(provider)];
}

/** The providers a run can use here (resolveProvider accepts them): known, with a key or keyless (demo). */
export function usableProviders(config: ProviderConfig): string[] {
  return [...new Set([...Object.keys(PROVIDERS), config.provider])].filter(
    (p) => p === "demo" || Boolean(keyOf(config, p)),
  );
}

/** Resolved connection settings for one model call. */
export interface ProviderConnection {
  provider: string;
  baseURL: string;
  apiKey: string;
}

/**
 * Resolves base URL and key. The claw's own `baseURL` and `apiKey` belong to its configured
 * provider only: a session on another known provider talks to that provider's own URL with its
 * own key. A missing key is `provider_auth_missing` naming the variable.
 */
export function resolveProvider(config: ProviderConfig, provider = config.provider): ProviderConnection {
  checkKnownProvider(config, provider);
  const configured = provider === config.provider;
  const keyVar = keyVarOf(provider);
  if (provider === "demo") return { provider, baseURL: PROVIDERS.demo!.baseURL, apiKey: "demo" };
  const apiKey = keyOf(config, provider);
  if (!apiKey) {
    // A served claw (url set) is fixed on the server; an embedded one by its own program.
    // Without any key, the demo provider still runs sessions and tasks end to end: say how.
    const fix = config.url
      ? `set ${keyVar} in the environment of the tsclaw server at ${config.url} and restart it`
      : `set ${keyVar} in this process's environment, or pass apiKey to createClaw()`;
    const demo = config.url
      ? `restart it with --model-provider demo (CLAW_MODEL_PROVIDER=demo), or pass "provider": "demo" to start_session or run_task`
      : `use createClaw({ provider: "demo" }) (tsclaw: --model-provider demo, or CLAW_MODEL_PROVIDER=demo), or provider: "demo" in start_session or run_task`;
    throw new ClawError(
      "provider_auth_missing",
      `no API key for provider ${provider}: ${fix}. Without a key, ${demo}: the built-in demo model (offline, no LLM) runs one bash command per prompt`,
      {
        provider,
        variable: keyVar,
        keyVariables: Object.values(PROVIDERS)
          .map((p) => p.keyVar)
          .filter(Boolean),
        keyless: config.url
          ? { args: { provider: "demo" }, flag: "--model-provider demo", env: "CLAW_MODEL_PROVIDER=demo" }
          : { args: { provider: "demo" }, createClaw: { provider: "demo" }, env: "CLAW_MODEL_PROVIDER=demo" },
      },
    );
  }
  const baseURL = (configured ? config.baseURL : undefined) ?? PROVIDERS[provider]?.baseURL;
  if (!baseURL)
    throw new ClawError("invalid_args", `provider ${provider} has no known base URL: configure baseURL`, {
      provider,
    });
  return { provider, baseURL, apiKey };
}

/** One line for startup: whether the key was found. */
export function providerKeyStatus(config: { provider: string; apiKey?: string; env: NodeJS.ProcessEnv }): string {
  const keyVar = keyVarOf(config.provider);
  if (config.provider === "demo")
    return "none needed: the built-in demo model runs one bash command per prompt (no LLM)";
  if (config.apiKey) return "given in options";
  return config.env[keyVar]
    ? `${keyVar} found`
    : `${keyVar} missing: sessions and tasks fail with provider_auth_missing (everything else works); without a key, restart with --model-provider demo`;
}

/**
 * OpenAI clients by base URL and key, built once. The SDK's own retries are off: the agent loop
 * retries itself so that each retry is visible as a `retry` event.
 */
export class ModelClients {
  private readonly clients = new Map<string, OpenAI>();
  private readonly transport = new ModelFetch();

  /** A client for `conn`. */
  get(conn: ProviderConnection): OpenAI {
    const id = `${conn.baseURL}\n${conn.apiKey}`;
    let client = this.clients.get(id);
    if (!client) {
      const fetch = conn.provider === "demo" ? demoFetch : this.transport.fetch;
      client = new OpenAI({ baseURL: conn.baseURL, apiKey: conn.apiKey, maxRetries: 0, fetch });
      this.clients.set(id, client);
    }
    return client;
  }

  /** Closes the clients' connections (once no run is left to use them). */
  close(): Promise<void> {
    return this.transport.close();
  }
}
