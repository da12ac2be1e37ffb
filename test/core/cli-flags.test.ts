import { describe, expect, it } from "vitest";
import { parseArgs, parseListen } from "../../adapters/cli/args.js";
import { clawOptionsFromFlags } from "../../adapters/cli/claw-flags.js";

describe("CLI flags", () => {
  it("reads flags first, then CLAW_* variables", () => {
    const args = parseArgs(["--db", "x.db", "--bus-max-events=500", "--max-bash", "4"]);
    const opts = clawOptionsFromFlags(args, { CLAW_MODEL: "m", CLAW_BUS_MAX_AGE: "72h", CLAW_DB: "ignored.db" });
    expect(opts).toMatchObject({
      db: "x.db",
      model: "m",
      durability: "normal",
      retention: { maxEvents: 500, maxAgeMs: 72 * 3_600_000 },
      limits: { maxBashProcesses: 4 },
    });
  });

  it("rejects bad values with a message naming the flag", () => {
    expect(() => clawOptionsFromFlags(parseArgs(["--max-bash", "lots"]), {})).toThrow(
      /--max-bash must be a positive integer/,
    );
    expect(() => clawOptionsFromFlags(parseArgs(["--bus-max-age", "soon"]), {})).toThrow(
      /--bus-max-age must be a Go duration/,
    );
    expect(() => clawOptionsFromFlags(parseArgs(["--durability", "maybe"]), {})).toThrow(
      /--durability must be normal or full/,
    );
  });

  it("parses Go-style listen addresses", () => {
    expect(parseListen(":8000")).toEqual({ host: undefined, port: 8000 });
    expect(parseListen("127.0.0.1:0")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(parseListen("[::1]:9000")).toEqual({ host: "::1", port: 9000 });
    expect(() => parseListen("nowhere")).toThrow(/is not \[host\]:port/);
  });
});
