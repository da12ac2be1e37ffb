import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      http: "adapters/http.ts",
      ws: "adapters/ws.ts",
      stdio: "adapters/stdio.ts",
      mcp: "adapters/mcp/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    shims: true, // import.meta.url in the CJS build (the WAL checkpointer resolves better-sqlite3 with it)
    target: "node20",
    outDir: "dist",
  },
  {
    // The remote client runs in browsers too: built for a neutral platform, so a Node built-in in
    // its import graph fails the build instead of reaching a user.
    entry: { client: "src/client.ts" },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    platform: "neutral",
    target: "es2022",
    outDir: "dist",
  },
  {
    entry: { cli: "adapters/cli/index.ts" },
    format: ["esm"],
    target: "node20",
    shims: true,
    outDir: "dist",
    sourcemap: true,
  },
]);
