/**
 * What `npm install` shows a new user: no "install-scripts not yet covered by allowScripts"
 * warning (every package with an install script is allowed by name) and one copy of esbuild
 * (tsx and tsup each pinned their own minor, which doubled the download and the native binary).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), "utf8"));
const pkg = read("package.json") as { allowScripts?: Record<string, boolean> };
const lock = read("package-lock.json") as {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
};

/** The package name of a lock entry's key (`node_modules/a/node_modules/@s/b` → `@s/b`). */
const nameOf = (key: string) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);

describe("package hygiene", () => {
  it("every package with an install script is named in allowScripts", () => {
    const scripted = Object.entries(lock.packages)
      .filter(([key, entry]) => key !== "" && entry.hasInstallScript)
      .map(([key]) => nameOf(key));
    expect(scripted.length).toBeGreaterThan(0);
    for (const name of scripted) expect(pkg.allowScripts?.[name], name).toBe(true);
  });

  it("the lock file holds one version of esbuild", () => {
    const versions = new Set(
      Object.entries(lock.packages)
        .filter(([key]) => nameOf(key) === "esbuild")
        .map(([, entry]) => entry.version),
    );
    expect([...versions]).toHaveLength(1);
  });
});
