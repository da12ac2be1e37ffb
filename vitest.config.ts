import { defineConfig } from "vitest/config";

/** The typed-API suite: it runs twice, against createClaw() and against connectClaw() to a real server. */
const TYPED_API_SUITE = [
  "test/core/bus.test.ts",
  "test/core/bash.test.ts",
  "test/session/*.test.ts",
  "test/tasks/check-task.test.ts",
  "test/tasks/completion.test.ts",
  "test/tasks/continuity.test.ts",
  "test/tasks/run-task.test.ts",
  "test/tasks/telemetry.test.ts",
  "test/tasks/task-events.test.ts",
  "test/nodes/list-nodes.test.ts",
];

/**
 * The same suite on PostgreSQL: one server for the run, a fresh database per claw. Until
 * createClaw opens PostgreSQL for a postgres:// URL it runs on request only (`npm run test:pg`,
 * TSCLAW_TEST_PG=1); then it joins `npm test` by dropping that condition.
 */
const POSTGRES = {
  extends: true,
  test: {
    name: "postgres",
    include: TYPED_API_SUITE,
    env: { TSCLAW_TEST_STORE: "postgres" },
    globalSetup: ["test/helpers/pg-global-setup.ts"],
  },
};

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Tests that read PIDs a script prints ($$, $!) need the host's PID numbering; the bwrap
    // sandbox gives scripts their own. Tests of the sandbox choose it explicitly.
    env: { CLAW_SANDBOX: "none" },
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "local", include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "remote", include: TYPED_API_SUITE, env: { TSCLAW_TEST_CLAW: "remote" } },
      },
      ...(process.env.TSCLAW_TEST_PG === "1" ? [POSTGRES] : []),
    ],
  },
});
