/**
 * Child process of the restart test: opens a claw on a database file, starts a task whose bash
 * sleeps, prints the task id, then waits to be killed with SIGKILL.
 * argv: <db path> <fake model url> <pid file>
 */
import { createClaw } from "../../src/index.js";

const [db, baseURL, pidFile] = process.argv.slice(2) as [string, string, string];
const claw = createClaw({
  db,
  baseURL,
  project: "test",
  env: { ...process.env, OPENROUTER_API_KEY: "test-key" },
  log: () => {},
});
const r = await claw.task.run({ prompt: `sleep (pid file ${pidFile})`, sessionKey: "crashy" });
process.stdout.write(`${JSON.stringify({ taskId: r.taskId })}\n`);
setInterval(() => {}, 1000);
