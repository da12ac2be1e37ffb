import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { flagsHelp } from "../adapters/cli/help.js";
import { FLAGS_PAGE, withFlagTable } from "../scripts/readme-flags.js";
import { SETTINGS } from "../src/config/settings.js";

describe("one config table", () => {
  it("the documented flag table (docs/serving.md) is the generated one (npm run readme:flags rewrites it)", () => {
    const page = readFileSync(new URL(`../${FLAGS_PAGE}`, import.meta.url), "utf8");
    expect(withFlagTable(page)).toBe(page);
    // and the README links to it
    expect(readFileSync(new URL("../README.md", import.meta.url), "utf8")).toContain(`(${FLAGS_PAGE})`);
  });

  it("every flag appears in the help of each command that takes it, with its variable", () => {
    for (const s of SETTINGS) {
      for (const command of s.commands) {
        const help = flagsHelp(command);
        expect(help).toContain(`--${s.flag}`);
        if (s.env) expect(help).toContain(s.env);
      }
    }
  });

  it("flag names are unique per command and every variable is CLAW_<FLAG>", () => {
    const commands = new Set(SETTINGS.flatMap((s) => s.commands));
    for (const command of commands) {
      const flags = SETTINGS.filter((s) => s.commands.includes(command)).map((s) => s.flag);
      expect(new Set(flags).size).toBe(flags.length);
    }
    for (const s of SETTINGS) if (s.env) expect(s.env).toBe(`CLAW_${s.flag.toUpperCase().replace(/-/g, "_")}`);
  });
});
