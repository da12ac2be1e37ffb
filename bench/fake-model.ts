/**
 * The test suite's fake Responses server in its own process, answering every request with a
 * short text (so the bench process's memory and CPU are tsclaw's alone). Prints {"url": …}.
 * Usage: node --import tsx bench/fake-model.ts
 */
import { answer, startFakeResponses } from "../test/fixtures/fake-responses.js";

const fake = await startFakeResponses();
fake.setDefault(answer("done"));
// Recorded requests would grow without bound over thousands of tasks.
setInterval(() => fake.requests.splice(0), 1000).unref();
process.stdout.write(`${JSON.stringify({ url: fake.url })}\n`);
process.on("SIGTERM", () => void fake.close().then(() => process.exit(0)));
