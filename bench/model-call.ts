/**
 * The model calls baselines and peers make: one streaming Responses call to the fake model,
 * read until `response.completed`, with one `openai` client per side: a bare one-line request,
 * or a body tsclaw sent (recorded by the fake model: `bodyRecorder`), so a peer makes the very
 * call tsclaw made.
 */
import type { ChildProcess } from "node:child_process";
import type OpenAI from "openai";
import type { ChildMessages } from "./measure.js";

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

/** Call `i` of a peer replaying tsclaw's recorded `bodies` (cycled): the body tsclaw's task `i` sent. */
export function recordedCall(
  client: OpenAI,
  bodies: readonly OpenAI.Responses.ResponseCreateParams[],
  i: number,
): Promise<void> {
  if (bodies.length === 0) throw new Error("no request bodies were recorded to send");
  return sentModelCall(client, bodies[i % bodies.length]!);
}

/** The fake model's recording of request bodies (its stdin piped): see fake-model.ts. */
export function bodyRecorder(child: ChildProcess, messages: ChildMessages) {
  return {
    /** Resolves once the fake model keeps what comes: the first request of the run is not missed. */
    async start(): Promise<void> {
      child.stdin!.write("record\n");
      await messages.next((m) => m.recording === true);
    },
    /** The bodies since start, parsed. */
    async take(): Promise<OpenAI.Responses.ResponseCreateParams[]> {
      child.stdin!.write("bodies\n");
      const { bodies } = (await messages.next((m) => typeof m.bodies === "number")) as { bodies: number };
      const out: OpenAI.Responses.ResponseCreateParams[] = [];
      for (let k = 0; k < bodies; k++)
        out.push(JSON.parse((await messages.next((m) => typeof m.body === "string")).body));
      return out;
    },
  };
}
