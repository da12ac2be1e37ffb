/**
 * Embedding tsclaw in a TypeScript program: the bus, bash with event templates, a session and a
 * task, all in-process, no server. Run: npx tsx examples/embed.ts
 *
 * createClaw() reads the same CLAW_* variables as `tsclaw serve` (CLAW_MODEL_PROVIDER,
 * CLAW_MODEL, CLAW_BASE_URL, …). Without the provider's key (OPENROUTER_API_KEY for the default
 * provider, OPENAI_API_KEY for openai) the session and the task use the built-in demo model.
 */
import { ClawError, createClaw, providerKeyVar } from "../src/index.js"; // in your project: from "tsclaw"

const claw = createClaw({ db: process.env.CLAW_DB ?? ":memory:" });
try {
  // 1. Subscribe with a callback, then publish: `out` resolves once the event is committed.
  const seen: unknown[] = [];
  const unsubscribe = claw.bus.subscribe({ bus: "embed" }, (event) => seen.push(event.payload));
  const ack = await claw.bus.out({ bus: "embed", payload: { hello: "world" } });
  console.log(`out: seq ${ack.seq} on ${ack.bus}`);

  // 2. bash; every stdout line also becomes an event, committed before the result returns.
  const r = await claw.bash({
    script: "printf 'one\\ntwo\\n'",
    timeout: "10s",
    stdoutLineEvent: { template: { line: "{payload}" }, bus: "embed" },
  });
  console.log(`bash: exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}`);

  // 3. Read with a cursor; iterate from the start with an async iterator.
  const page = await claw.bus.read({ bus: "embed", after: 0 });
  console.log(`read: ${JSON.stringify(page.events.map((e) => e.payload))}, next ${page.next}`);
  const stream = claw.bus.subscribe({ bus: "embed", after: 0 });
  for await (const event of stream) {
    if (event.seq === page.lastSeq) break; // `break` closes the stream
  }
  await new Promise((resolve) => setImmediate(resolve)); // let the callback subscription catch up
  unsubscribe();
  console.log(`callback saw ${seen.length} events`);

  // 4. Errors carry a stable code (this call is refused on purpose: spaces are not allowed).
  try {
    await claw.bus.out({ bus: "not a bus name", payload: 1 });
  } catch (err) {
    if (err instanceof ClawError) console.log(`a bad bus name is refused with ${err.code}: ${err.message}`);
  }

  // 5. Sessions and tasks talk to a model: the configured provider's, or the offline demo model.
  const keyVar = providerKeyVar(claw.config.provider);
  const provider = keyVar && !process.env[keyVar] ? "demo" : undefined;
  if (provider) console.log(`${keyVar} is not set: using the built-in demo model (no LLM)`);
  {
    const session = await claw.session.start({ sessionKey: "embed-demo", provider });
    const run = await session.prompt({ message: "Say hello in three words" });
    console.log(`prompt: ${run.status} ${JSON.stringify(run.text)}`);

    const task = await claw.task.run({ prompt: "Count the files here", sessionKey: "embed-task", provider });
    let check = await claw.task.check({ taskId: task.taskId, waitMs: 30_000 });
    while (check.continuePolling) check = await claw.task.check({ taskId: task.taskId });
    console.log(`task: ${check.task.status} ${JSON.stringify(check.task.summary)}`);
  }
} finally {
  await claw.close();
}
