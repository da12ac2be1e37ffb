/**
 * The model client's own share of the "RSS growth, N tasks run" row: N streaming calls made
 * directly with `openai` to the fake model at URL, `concurrency` at a time, in a fresh process
 * (as the row's claw makes them, one client for all), with the settled RSS before, after and at
 * the middle, and the peak. Prints {"url"?...} nothing until done, then {before, middle, after, peak}.
 * Usage: node --import tsx --expose-gc bench/model-calls-rss.ts <url> <calls> <concurrency>
 */
import OpenAI from "openai";
import { pool, rssMiB, settledRss } from "./measure.js";
import { bareModelCall } from "./model-call.js";

const [url, callsArg, concurrencyArg] = process.argv.slice(2);
const calls = Number(callsArg);
const concurrency = Number(concurrencyArg);

const client = new OpenAI({ baseURL: url, apiKey: "bench", maxRetries: 0 });
const call = (i: number) => bareModelCall(client, `task ${i}`);
const before = await settledRss();
let peak = before;
const timer = setInterval(() => (peak = Math.max(peak, rssMiB())), 20);
await pool(concurrency, calls / 2, call);
const middle = await settledRss();
await pool(concurrency, calls / 2, (i) => call(i + calls / 2));
clearInterval(timer);
const after = await settledRss();
process.stdout.write(`${JSON.stringify({ before, middle, after, peak: Math.max(peak, rssMiB()) })}\n`);
