/**
 * The bare model call every baseline and peer makes: one streaming Responses call to the fake
 * model, read until `response.completed`, with one `openai` client per side.
 */
import type OpenAI from "openai";

/** One streaming call carrying the user message `text`; resolves once the response completed. */
export async function bareModelCall(client: OpenAI, text: string): Promise<void> {
  await sentModelCall(client, { model: "fake", input: [{ role: "user", content: text }] });
}

/**
 * One streaming call with the request `params` (a body tsclaw sent, as the fake model recorded
 * it: a peer then makes the very call tsclaw made); resolves once the response completed.
 */
export async function sentModelCall(client: OpenAI, params: OpenAI.Responses.ResponseCreateParams): Promise<void> {
  const stream = await client.responses.create({ ...params, stream: true });
  for await (const ev of stream) if (ev.type === "response.completed") break;
}
