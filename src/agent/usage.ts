/** Token usage as providers report it (cached input, reasoning, OpenRouter's cost) and its sums. */
import type { Usage } from "./session-schemas.js";

/** No tokens, no cost. */
export function zeroUsage(): Usage {
  return { input: 0, output: 0, total: 0, cachedInput: 0, reasoning: 0, cost: null };
}

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? Math.max(0, Math.round(v)) : 0);

/** Reads a Responses `usage` object (fields missing on some providers count as 0; cost stays null). */
export function usageOf(raw: unknown): Usage {
  const u = (raw ?? {}) as Record<string, unknown>;
  const inDetails = (u.input_tokens_details ?? {}) as Record<string, unknown>;
  const outDetails = (u.output_tokens_details ?? {}) as Record<string, unknown>;
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  return {
    input,
    output,
    total: u.total_tokens === undefined ? input + output : count(u.total_tokens),
    cachedInput: count(inDetails.cached_tokens),
    reasoning: count(outDetails.reasoning_tokens),
    cost: typeof u.cost === "number" && Number.isFinite(u.cost) ? u.cost : null,
  };
}

/** Adds `b` into `a` (a cost stays null only while no call reported one). */
export function addUsage(a: Usage, b: Usage): void {
  a.input += b.input;
  a.output += b.output;
  a.total += b.total;
  a.cachedInput += b.cachedInput;
  a.reasoning += b.reasoning;
  if (b.cost !== null) a.cost = (a.cost ?? 0) + b.cost;
}
