/** The environment of bash processes: inherited, provider keys removed, context and caller vars on top. */

/** Variables that hold provider credentials; never handed to a bash process. */
const PROVIDER_KEY_VARS = new Set([
  "OPENROUTER_API_KEY",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "MISTRAL_API_KEY",
  "GROQ_API_KEY",
  "XAI_API_KEY",
  "DEEPSEEK_API_KEY",
]);

/** True for a variable that looks like a provider API key. */
export function isProviderKeyVar(name: string, extra: readonly string[] = []): boolean {
  return PROVIDER_KEY_VARS.has(name) || extra.includes(name) || /_API_KEY$/i.test(name);
}

/** Builds a bash environment: `base` without provider keys, then `context`, then `explicit`. */
export function buildBashEnv(
  base: NodeJS.ProcessEnv,
  context: Record<string, string | undefined>,
  explicit: Record<string, string> | undefined,
  extraKeyVars: readonly string[] = [],
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !isProviderKeyVar(k, extraKeyVars)) env[k] = v;
  for (const [k, v] of Object.entries(context)) if (v !== undefined) env[k] = v;
  if (explicit) Object.assign(env, explicit);
  return env;
}
