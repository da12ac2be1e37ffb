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
 * The same suite on PostgreSQL: one server for the run (started by the global setup from
 * Debian's binaries), a fresh database per claw. `npm run test:pg` runs it alone.
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
      POSTGRES,
    ],
  },
});
