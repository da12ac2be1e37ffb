import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../../adapters/cli/flags.js";
import { resolveConfig } from "../../src/config/claw-config.js";
import { listenAddress } from "../../src/config/parsers.js";

describe("CLI flags from the config table", () => {
  it("reads flags first, then CLAW_* variables", () => {
    const env = { CLAW_MODEL: "m", CLAW_BUS_MAX_AGE: "72h", CLAW_DB: "ignored.db" };
    const cl = parseCommandLine("stdio", ["--db", "x.db", "--bus-max-events=500", "--max-bash", "4"], [], env);
    expect(cl.clawOptions()).toMatchObject({
      db: "x.db",
      model: "m",
      retention: { maxEvents: 500, maxAgeMs: 72 * 3_600_000 },
      limits: { maxBashProcesses: 4 },
    });
    const events = parseCommandLine("serve", ["--max-bash-events", "50"], [], { CLAW_MAX_BASH_EVENTS: "9" });
    expect(events.clawOptions().limits?.maxEventsPerCall).toBe(50);
    const fromEnv = parseCommandLine("serve", [], [], { CLAW_MAX_BASH_EVENTS: "9" });
    expect(fromEnv.clawOptions().limits?.maxEventsPerCall).toBe(9);
  });

  it("rejects bad values with a message naming the flag or the variable", () => {
    const parse =
      (argv: string[], env = {}) =>
      () =>
        parseCommandLine("serve", argv, [], env).clawOptions();
    expect(parse(["--max-bash", "lots"])).toThrow(/--max-bash must be a positive integer/);
    expect(parse(["--bus-max-age", "soon"])).toThrow(/--bus-max-age must be a Go duration/);
    expect(parse(["--bus-max-age", "0.0001ns"])).toThrow(/--bus-max-age must be between 1s and 100 years/);
    expect(parse([], { CLAW_BUS_MAX_AGE: "999ms" })).toThrow(/CLAW_BUS_MAX_AGE must be between 1s/);
    expect(parse(["--durability", "maybe"])).toThrow(/--durability must be normal or full/);
    expect(parse([], { CLAW_MAX_BASH: "-3" })).toThrow(/CLAW_MAX_BASH must be a positive integer/);
  });

  it("refuses unknown flags, missing values, repeats and extra arguments, naming the closest flag", () => {
    const error = (command: "serve" | "stdio" | "do", argv: string[]) => {
      try {
        parseCommandLine(command, argv, command === "do" ? [{ name: "op", required: true }, { name: "json" }] : []);
      } catch (err) {
        return (err as Error).message;
      }
      return "accepted";
    };
    expect(error("serve", ["--lsiten", ":1"])).toBe("unknown flag --lsiten (did you mean --listen?)");
    expect(error("serve", ["--port", "8001"])).toBe("unknown flag --port (did you mean --listen?)");
    expect(error("serve", ["-p", "8001"])).toBe("unknown flag -p (did you mean --listen?)");
    expect(error("serve", ["extra"])).toMatch(/^unexpected argument "extra" \(serve takes no arguments/);
    expect(error("stdio", ["--dbb", "x.db"])).toBe("unknown flag --dbb (did you mean --db?)");
    expect(error("stdio", ["--listen", ":1"])).toBe("--listen is a flag of serve, not of stdio");
    expect(error("do", ["out", "{}", "--urll", "http://x"])).toBe("unknown flag --urll (did you mean --url?)");
    expect(error("do", [])).toMatch(/^missing <op>/);
    expect(error("serve", ["--db"])).toBe("flag --db needs a value (--db PATH|URL)");
    // Another URL scheme is refused, never taken for a file name; postgres URLs are databases.
    expect(error("serve", ["--db", "mysql://h/x"])).toMatch(/^--db: mysql:\/\/ is not a database tsclaw can open/);
    expect(error("stdio", ["--db", "postgres://u@h/db"])).toBe("accepted");
    expect(error("serve", ["--db", "--model", "m"])).toBe("flag --db needs a value (--db PATH|URL)");
    expect(error("serve", ["--db", "a", "--db", "b"])).toBe("flag --db is given twice");
    expect(error("do", ["out", "--pretty=yes"])).toBe("flag --pretty takes no value");
  });

  it("takes a repeatable flag several times, or a comma-separated variable", () => {
    const flags = parseCommandLine("serve", ["--allow-origin", "http://a:1", "--allow-origin=http://b"], [], {});
    expect(flags.get("allow-origin")).toEqual(["http://a:1", "http://b"]);
    const env = parseCommandLine("serve", [], [], { CLAW_ALLOW_ORIGIN: "http://a:1, http://b" });
    expect(env.get("allow-origin")).toEqual(["http://a:1", "http://b"]);
    expect(() => parseCommandLine("serve", ["--allow-origin", "http://a/path"], [], {}).get("allow-origin")).toThrow(
      /is not an origin/,
    );
  });

  it("parses Go-style listen addresses", () => {
    expect(listenAddress(":8000", "--listen")).toEqual({ host: undefined, port: 8000 });
    expect(listenAddress("127.0.0.1:0", "--listen")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(listenAddress("[::1]:9000", "--listen")).toEqual({ host: "::1", port: 9000 });
    expect(() => listenAddress("nowhere", "--listen")).toThrow(/is not \[host\]:port/);
  });

  it("createClaw's config reads the same CLAW_* variables unless an option overrides them", () => {
    const env = { CLAW_MODEL: "env-model", CLAW_MODEL_PROVIDER: "openai", CLAW_BASE_URL: "http://127.0.0.1:9/v1" };
    expect(resolveConfig({ env })).toMatchObject({
      model: "env-model",
      provider: "openai",
      baseURL: "http://127.0.0.1:9/v1",
    });
    expect(resolveConfig({ env, model: "given" }).model).toBe("given");
    expect(resolveConfig({ env: { CLAW_MODEL_PROVIDER: "openai" } }).model).toBe("gpt-5");
    expect(resolveConfig({ env: {} })).toMatchObject({ model: "openai/gpt-5:online", provider: "openrouter" });
    expect(() => resolveConfig({ env: { CLAW_MAX_TURNS: "many" } })).toThrow(
      /CLAW_MAX_TURNS must be a positive integer/,
    );
  });
});
