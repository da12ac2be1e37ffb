/**
 * `npm run pg`: a throwaway PostgreSQL for development, the same server the tests start
 * (test/helpers/pg-server.ts). Prints its URL and how to use it, runs until Ctrl-C, SIGTERM or
 * SIGHUP, then stops it and deletes its data; if this process dies first (kill -9, or npm and tsx
 * giving up on it), the server's watchdog does both.
 */
import { startPgServer } from "../test/helpers/pg-server.js";

const USAGE = `usage: npm run pg

Starts PostgreSQL in a temporary directory (loopback TCP on a free port, and a unix socket),
prints its URL, and stops it and deletes its data on Ctrl-C or SIGTERM.`;

async function main(): Promise<void> {
  if (process.argv.length > 2) {
    const help = ["--help", "-h"].includes(process.argv[2]!);
    (help ? process.stdout : process.stderr).write(`${USAGE}\n`);
    process.exit(help ? 0 : 2);
  }
  const server = await startPgServer({ prefix: "tsclaw-dev-pg-" });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping PostgreSQL and deleting ${server.dir}\n`);
    try {
      await server.stop();
    } catch (err) {
      // The data directory is gone even then (stop removes it whatever pg_ctl said).
      process.stderr.write(`npm run pg: ${(err as Error).message}\n`);
    }
    process.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stop(signal));
  // Any other way out (an uncaught error, process.exit elsewhere): stop() runs synchronously.
  process.on("exit", () => void server.stop());
  process.stdout.write(
    [
      `PostgreSQL ${server.version} is running (data in ${server.dir}, deleted when it stops).`,
      "",
      `  URL:          ${server.url}`,
      `  unix socket:  ${server.socketUrl}`,
      "",
      "Serve tsclaw on it (a postgres URL needs a token; nodes share it):",
      `  CLAW_DB=${server.url} CLAW_TOKEN=dev-token npm start`,
      "Run the storage-contract tests on it instead of a server of their own:",
      `  TSCLAW_TEST_PG_URL=${server.url} npm run test:pg`,
      "",
      "Ctrl-C stops it.",
      "",
    ].join("\n"),
  );
  setInterval(() => {}, 1 << 30); // keep running until a signal
}

main().catch((err: Error) => {
  process.stderr.write(`npm run pg: ${err.message}\n`);
  process.exit(1);
});
