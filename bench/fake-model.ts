/**
 * The test suite's fake Responses server in its own process, answering every request with a
 * short text (so the bench process's memory and CPU are tsclaw's alone). Prints {"url": …}.
 * With stdin piped, it records request bodies on demand, so a peer can send the very bodies
 * tsclaw sent (the same model call): a line "record" starts keeping them (answered
 * {"recording": true}), a line "bodies" prints one {"body": …} line per request kept since, then
 * {"bodies": count}, and stops keeping them.
 * Usage: node --import tsx bench/fake-model.ts
 */
import { createInterface } from "node:readline";
import { answer, startFakeResponses } from "../test/fixtures/fake-responses.js";

const fake = await startFakeResponses();
fake.setDefault(answer("done"));
let recorded: string[] | undefined;
const drain = () => {
  const taken = fake.requests.splice(0);
  if (recorded) for (const r of taken) recorded.push(r.raw);
};
// Recorded requests would grow without bound over thousands of tasks.
setInterval(drain, 1000).unref();
process.stdout.write(`${JSON.stringify({ url: fake.url })}\n`);
process.on("SIGTERM", () => void fake.close().then(() => process.exit(0)));
// An ignored stdin ends at once, and nothing is ever recorded.
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "record") {
    fake.requests.splice(0);
    recorded = [];
    process.stdout.write(`${JSON.stringify({ recording: true })}\n`);
  } else if (line === "bodies") {
    drain();
    const bodies = recorded ?? [];
    recorded = undefined;
    for (const body of bodies) process.stdout.write(`${JSON.stringify({ body })}\n`);
    process.stdout.write(`${JSON.stringify({ bodies: bodies.length })}\n`);
  }
});
