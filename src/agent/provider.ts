/** Provider configuration: base URL and API key variable per provider, and the key lookup. */
import OpenAI from "openai";
import { ClawError } from "../errors.js";

/** A provider's defaults. */
export interface ProviderInfo {
  baseURL: string;
  keyVar: string;
}

/** Known providers. Any Responses-compatible server works through `baseURL`. */
export const PROVIDERS: Record<string, ProviderInfo> = {
  openrouter: { baseURL: "https://openrouter.ai/api/v1", keyVar: "OPENROUTER_API_KEY" },
  openai: { baseURL: "https://api.openai.com/v1", keyVar: "OPENAI_API_KEY" },
};

/** The variable holding `provider`'s key (unknown providers: `<NAME>_API_KEY`). */
export function keyVarOf(provider: string): string {
  return PROVIDERS[provider]?.keyVar ?? `${provider.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`;
}

/** Resolved connection settings for one model call. */
export interface ProviderConnection {
  provider: string;
  baseURL: string;
  apiKey: string;
}

/** Resolves base URL and key; a missing key is `provider_auth_missing` naming the variable. */
export function resolveProvider(
  config: { provider: string; baseURL?: string; apiKey?: string; env: NodeJS.ProcessEnv },
  provider = config.provider,
): ProviderConnection {
  const keyVar = keyVarOf(provider);
  const apiKey = config.apiKey ?? config.env[keyVar];
  if (!apiKey) {
    throw new ClawError(
      "provider_auth_missing",
      `no API key for provider ${provider}: set ${keyVar} in the server's environment (or pass apiKey)`,
      { provider, variable: keyVar },
    );
  }
  const baseURL = config.baseURL ?? PROVIDERS[provider]?.baseURL;
  if (!baseURL)
    throw new ClawError("invalid_args", `unknown provider ${provider}: use openrouter or openai, or set a baseURL`, {
      provider,
    });
  return { provider, baseURL, apiKey };
}

/** One line for startup: whether the key was found. */
export function providerKeyStatus(config: { provider: string; apiKey?: string; env: NodeJS.ProcessEnv }): string {
  const keyVar = keyVarOf(config.provider);
  if (config.apiKey) return "given in options";
  return config.env[keyVar]
    ? `${keyVar} found`
    : `${keyVar} missing: session and task operations will fail with provider_auth_missing; everything else works`;
}

/**
 * OpenAI clients by base URL and key, built once. The SDK's own retries are off: the agent loop
 * retries itself so that each retry is visible as a `retry` event.
 */
export class ModelClients {
  private readonly clients = new Map<string, OpenAI>();

  /** A client for `conn`. */
  get(conn: ProviderConnection): OpenAI {
    const id = `${conn.baseURL}\n${conn.apiKey}`;
    let client = this.clients.get(id);
    if (!client) {
      client = new OpenAI({ baseURL: conn.baseURL, apiKey: conn.apiKey, maxRetries: 0 });
      this.clients.set(id, client);
    }
    return client;
  }
}
