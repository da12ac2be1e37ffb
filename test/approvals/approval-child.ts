/**
 * Child process of the approval restart tests: a claw on a database file, driven over stdin.
 * Each stdin line `{"id", "op", "args"}` is one call; the answer is the stdout line `{"id",
 * "result"}` or `{"id", "error"}`. `{"id", "decideRaw": approvalId}` commits an approval's
 * decision in the database and kills the process (SIGKILL) before anything else happens: a crash
 * between the decision and its run going on. SIGTERM closes the claw, then exits.
 * argv: <db path> <fake model url>
 */
import { createInterface } from "node:readline";
import { createClaw } from "../../src/index.js";

const [db, baseURL] = process.argv.slice(2) as [string, string];
const claw = createClaw({
  db,
  baseURL,
  project: "test",
  env: { ...process.env, OPENROUTER_API_KEY: "test-key" },
  log: (line) => process.stderr.write(`${line}\n`),
});
await claw.ready();
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
process.once("SIGTERM", () => {
  void claw.close().then(() => process.exit(0));
});
createInterface({ input: process.stdin }).on("line", (line) => {
  const req = JSON.parse(line) as { id: number; op?: string; args?: object; decideRaw?: string };
  if (req.decideRaw) {
    void claw.services.approvals.store.decide(req.decideRaw, "approved", null, "human").then(() => {
      process.kill(process.pid, "SIGKILL");
    });
    return;
  }
  claw.call(req.op as never, req.args as never).then(
    (result) => say({ id: req.id, result }),
    (err: { code?: string; message?: string }) => say({ id: req.id, error: { code: err.code, message: err.message } }),
  );
});
say({ ready: true });
