/** A small flag parser: `--name value`, `--name=value`, boolean flags, positionals, and CLAW_* fallbacks. */

/** Parsed command line. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/** Parses argv (without node and script). `booleans` lists flags that take no value. */
export function parseArgs(argv: readonly string[], booleans: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) flags.set(name, a.slice(eq + 1));
      else if (booleans.includes(name) || i + 1 >= argv.length || argv[i + 1]!.startsWith("--")) flags.set(name, true);
      else flags.set(name, argv[++i]!);
    } else if (a === "-h") flags.set("help", true);
    else positionals.push(a);
  }
  return { positionals, flags };
}

/** A flag's value, else the environment variable `CLAW_<NAME>` (dashes become underscores). */
export function flagOrEnv(args: ParsedArgs, name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const v = args.flags.get(name);
  if (typeof v === "string") return v;
  if (v === true) throw new Error(`--${name} needs a value`);
  return env[`CLAW_${name.toUpperCase().replace(/-/g, "_")}`] || undefined;
}

/** Splits a Go-style listen address: ":8000" → all interfaces, "127.0.0.1:9000", "[::1]:0", "8000". */
export function parseListen(listen: string): { host?: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*))?:?(\d+)$/.exec(listen.trim());
  if (!m) throw new Error(`--listen "${listen}" is not [host]:port (e.g. :8000, 127.0.0.1:8000)`);
  const host = m[1] ?? (m[2] || undefined);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`--listen "${listen}": port ${port} is out of range`);
  return { host, port };
}
