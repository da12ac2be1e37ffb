/**
 * One model turn with everything around it: retries (model-retry.ts) and the encrypted
 * reasoning request. A provider or model that refuses `include` gets the same request once more
 * without it, and is remembered (per provider and model, for this process) so later turns skip it.
 */
import type OpenAI from "openai";
import type { ResponseIncludable } from "openai/resources/responses/responses";
import type { ModelRetryOptions } from "../config/claw-config.js";
import { type ModelFailure, refusesInclude, withModelRetry } from "./model-retry.js";
import { streamTurn, type TurnOutput, type TurnRequest } from "./responses-stream.js";

const ENCRYPTED_REASONING: ResponseIncludable[] = ["reasoning.encrypted_content"];

/** Options of one call. */
export interface ModelCallOptions {
  provider: string;
  policy: Required<ModelRetryOptions>;
  onRetry: (info: { attempt: number; delayMs: number; failure: ModelFailure }) => void;
}

/** Calls the model; shared by every run and compaction of a claw. */
export class ModelCaller {
  private readonly noInclude = new Set<string>();

  constructor(private readonly log: (line: string) => void) {}

  /** Streams one turn, retrying what can clear. */
  turn(client: OpenAI, req: Omit<TurnRequest, "include">, opts: ModelCallOptions): Promise<TurnOutput> {
    const key = `${opts.provider}\n${req.model}`;
    return withModelRetry(
      async () => {
        if (this.noInclude.has(key)) return streamTurn(client, req);
        try {
          return await streamTurn(client, { ...req, include: ENCRYPTED_REASONING });
        } catch (err) {
          if (!refusesInclude(err)) throw err;
          this.noInclude.add(key);
          this.log(
            `tsclaw: ${opts.provider} refused include reasoning.encrypted_content for ${req.model}; not asking again`,
          );
          return streamTurn(client, req);
        }
      },
      { policy: opts.policy, signal: req.signal, onRetry: opts.onRetry },
    );
  }

  /** True when the model refused the encrypted reasoning request. */
  refusedInclude(provider: string, model: string): boolean {
    return this.noInclude.has(`${provider}\n${model}`);
  }
}
