/**
 * The test projects (docs/testing.md says which command runs which):
 * - `fast`: every `test/**\/*.test.ts` but the slow ones; what `npm test` runs on every change.
 * - `slow`: `test/**\/*.slow.test.ts`: fault injection, kill -9 loops, multi-node, browser,
 *   scale, files that start many processes (`npm run test:slow`). A file lands in one of the two
 *   by its name alone.
 * - `remote` and `postgres`: the typed-API suite again, through connectClaw() to a real server
 *   and on PostgreSQL (the `fast` project runs it in-process on SQLite).
 */
import { defineConfig } from "vitest/config";

/** The typed-API suite: its files run once per store and once through the remote client. */
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

/** The slow files, by name. */
const SLOW = "test/**/*.slow.test.ts";

/**
 * Left out of the remote and postgres runs of the suite: slow files, and session files that
 * start their own `serve` processes on SQLite (no apiClaw), which would only run a second and a
 * third time unchanged.
 */
const NOT_TYPED = [SLOW, "test/session/serve-models.test.ts"];

/**
 * The typed-API suite on PostgreSQL: one server for the run (started by the global setup from
 * Debian's binaries), a fresh database per claw. `npm run test:pg` runs it alone.
 */
const POSTGRES = {
  extends: true,
  test: {
    name: "postgres",
    include: TYPED_API_SUITE,
    exclude: NOT_TYPED,
    env: { TSCLAW_TEST_STORE: "postgres" },
    globalSetup: ["test/helpers/tmp-global-setup.ts", "test/helpers/pg-global-setup.ts"],
  },
};

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // A worker runs file after file in one process, keeping the modules it has loaded: each file
    // loading the whole tree (the MCP SDKs, zod, openai, …) afresh cost over a minute of the fast
    // project's 2 min 20 s (measured in docs/testing.md). Files share nothing else: every test
    // builds its own claws, servers and temporary directories, and closes them.
    isolate: false,
    // Two files at a time on this 2-core machine: most of a file's time is spent waiting on the
    // servers, shells and PostgreSQL it starts, so a second worker fills those waits (measured
    // in docs/testing.md). vitest's own default here would be one (cores - 1).
    maxWorkers: 2,
    // Tests that read PIDs a script prints ($$, $!) need the host's PID numbering; the bwrap
    // sandbox gives scripts their own. Tests of the sandbox choose it explicitly.
    env: { CLAW_SANDBOX: "none" },
    // The run's temporary files in a directory of its own, removed at its end.
    globalSetup: ["test/helpers/tmp-global-setup.ts"],
    reporters: ["default"],
    // CI (.ci/run sets TSCLAW_VITEST_FS_CACHE=1) keeps transformed modules on disk, in
    // node_modules/.experimental-vitest-cache, so its later runs (remote, postgres, slow, the Node
    // 22 and 26 smokes) do not transform the tree again: in a smoke run beside lint and the bench,
    // transforming took 20 to 39 s of its time. Experimental in vitest 4, hence CI only, where
    // every run starts from a clean clone.
    experimental: { fsModuleCache: process.env.TSCLAW_VITEST_FS_CACHE === "1" },
    projects: [
      { extends: true, test: { name: "fast", include: ["test/**/*.test.ts"], exclude: [SLOW] } },
      // The slow files share workers too. A fresh process per file (isolate) cost each file one
      // to one and a half seconds of CPU loading the tree (95 s of the slow run's time in CI) and
      // bought nothing measurable: on twelve short slow files shared workers took 48 s against
      // 70 (CPU 55 s against 71), on eight long ones 146 s against 142 (CPU 149 against 157).
      // (An earlier measurement, 20% slower shared, was taken with all four projects in one run.)
      { extends: true, test: { name: "slow", include: [SLOW] } },
      {
        extends: true,
        test: { name: "remote", include: TYPED_API_SUITE, exclude: NOT_TYPED, env: { TSCLAW_TEST_CLAW: "remote" } },
      },
      POSTGRES,
    ],
  },
});
