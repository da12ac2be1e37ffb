import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Tests that read PIDs a script prints ($$, $!) need the host's PID numbering; the bwrap
    // sandbox gives scripts their own. Tests of the sandbox choose it explicitly.
    env: { CLAW_SANDBOX: "none" },
    reporters: ["default"],
  },
});
