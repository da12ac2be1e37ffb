/**
 * What one streamed model call costs the node, by the way its bytes travel: the `openai` client
 * with the platform's fetch (what a user's bare call does, and the baselines), the same client on
 * tsclaw's transport (model-fetch.ts: undici's `request` on a keep-alive pool, the events read
 * by response-events.ts, as every run turn does), and undici's `request` with eventsource-parser
 * and no client at all (the floor under both). Each side makes N calls, 20 at once, to the
 * fake model in its own process; the sides take turns over several rounds, and the table gives
 * each side's node CPU per call (median of the rounds) and calls/s. Not a scenario: it says
 * where the model client's share of a run task goes.
 * Usage: npx tsx bench/model-transport.ts [calls] [--rounds=3]
 */
import { createParser } from "eventsource-parser";
import OpenAI from "openai";
import { Agent, request } from "undici";
import { ModelFetch } from "../src/agent/model-fetch.js";
import { responseEvents } from "../src/agent/response-events.js";
import { childMessages, now, pool, spawnBenchScript } from "./measure.js";
import { bareModelCall } from "./model-call.js";

const args = process.argv.slice(2);
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 2000);
const ROUNDS = Number(args.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 3);
const CONCURRENCY = 20;

const fake = spawnBenchScript("fake-model.ts");
const { url } = (await childMessages(fake).next((m) => typeof m.url === "string")) as { url: string };

const input = (i: number) => [{ role: "user" as const, content: `task ${i}` }];
const platform = new OpenAI({ baseURL: url, apiKey: "bench", maxRetries: 0 });
const transport = new ModelFetch();
const tsclaw = new OpenAI({ baseURL: url, apiKey: "bench", maxRetries: 0, fetch: transport.fetch });
const floorPool = new Agent();

async function viaTransport(i: number): Promise<void> {
  const signal = new AbortController().signal;
  const response = await tsclaw.responses
    .create({ model: "fake", input: input(i), stream: true }, { signal })
    .asResponse();
  for await (const _ of responseEvents(response, signal));
}

async function floor(i: number): Promise<void> {
  const answer = await request(`${url}/responses`, {
    method: "POST",
    dispatcher: floorPool,
    headers: { "content-type": "application/json", authorization: "Bearer bench" },
    body: JSON.stringify({ model: "fake", input: input(i), stream: true }),
  });
  const parser = createParser({ onEvent: (e) => JSON.parse(e.data) });
  const text = new TextDecoder();
  for await (const chunk of answer.body) parser.feed(text.decode(chunk as Buffer, { stream: true }));
}

const sides: [string, (i: number) => Promise<void>][] = [
  ["openai, platform fetch (bare call)", (i) => bareModelCall(platform, `task ${i}`)],
  ["openai, tsclaw's transport", viaTransport],
  ["undici request + eventsource-parser", floor],
];

/** CPU ms per call and calls/s of one pass of N calls. */
async function pass(call: (i: number) => Promise<void>): Promise<{ cpu: number; rate: number }> {
  for (let i = 0; i < 100; i++) await call(i); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = now();
  await pool(CONCURRENCY, N, call);
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / 1000 / N, rate: (N / (now() - t0)) * 1000 };
}

const results = new Map<string, { cpu: number; rate: number }[]>(sides.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const [name, call] of sides) results.get(name)!.push(await pass(call));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(`${N} calls a pass, ${CONCURRENCY} at once, ${ROUNDS} rounds (median)\n`);
process.stdout.write(`${"side".padEnd(38)} ${"node CPU ms/call".padStart(17)} ${"calls/s".padStart(8)}\n`);
for (const [name, passes] of results)
  process.stdout.write(
    `${name.padEnd(38)} ${median(passes.map((p) => p.cpu))
      .toFixed(3)
      .padStart(17)} ${median(passes.map((p) => p.rate))
      .toFixed(0)
      .padStart(8)}\n`,
  );
await transport.close();
await floorPool.destroy();
fake.kill("SIGTERM");
