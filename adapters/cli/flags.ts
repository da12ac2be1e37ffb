/**
 * Strict command-line parsing from the config table: unknown flags, a flag without its value,
 * a flag given twice and unexpected arguments are usage errors (exit 2) with one line that
 * names the closest valid flag. Values are parsed by the table's parsers, flag first, then the
 * setting's CLAW_* variable.
 */

import { type ClawOptions, mergeOptions } from "../../src/config/claw-config.js";
import { SettingError } from "../../src/config/parsers.js";
import { type AnySetting, type Command, SETTINGS, settingsOf } from "../../src/config/settings.js";
import { closest } from "../../src/core/suggest.js";

/** A mistake on the command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The positional arguments a command takes, by name, in order; `required` ones must be there. */
export interface PositionalSpec {
  name: string;
  required?: boolean;
}

/** A parsed command line. */
export interface CommandLine {
  command: Command;
  positionals: string[];
  /** `--help` or `-h` was given. */
  help: boolean;
  /** A flag's parsed value, else its variable's, else undefined. Repeatable flags give arrays. */
  get<T>(flag: string): T | undefined;
  /** True when the flag itself was on the command line (not only its variable in the environment). */
  given(flag: string): boolean;
  /** createClaw options of the flags and CLAW_* variables (parsed here, so a bad one is a usage error). */
  clawOptions(): ClawOptions;
}

function settingOf(command: Command, flag: string): AnySetting | undefined {
  return settingsOf(command).find((s) => s.flag === flag);
}

function unknownFlag(command: Command, raw: string): UsageError {
  const typed = raw.replace(/^-+/, "").split("=")[0]!;
  const own = settingsOf(command);
  const meant = own.find((s) => s.alsoTyped?.includes(typed));
  const names = meant ? [meant.flag] : closest(typed, [...own.map((s) => s.flag), "help"], 1);
  if (names.length > 0) return new UsageError(`unknown flag ${raw} (did you mean --${names[0]}?)`);
  const elsewhere = SETTINGS.find((s) => s.flag === typed);
  if (elsewhere) return new UsageError(`${raw} is a flag of ${elsewhere.commands.join(", ")}, not of ${command}`);
  return new UsageError(`unknown flag ${raw}; run tsclaw ${command} --help`);
}

function parseValue(s: AnySetting, text: string, label: string): unknown {
  try {
    return s.parse(text, label);
  } catch (err) {
    if (err instanceof SettingError) throw new UsageError(err.message);
    throw err;
  }
}

/** Parses `argv` (after the command name) for `command`; throws {@link UsageError}. */
export function parseCommandLine(
  command: Command,
  argv: readonly string[],
  positionalSpec: readonly PositionalSpec[] = [],
  env: NodeJS.ProcessEnv = process.env,
): CommandLine {
  const positionals: string[] = [];
  const given = new Map<AnySetting, unknown[]>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h" || arg === "--help") {
      help = true;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith("--")) throw unknownFlag(command, arg);
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    const s = settingOf(command, name);
    if (!s) throw unknownFlag(command, eq > 0 ? arg.slice(0, eq) : arg);
    let text: string;
    if (!s.value) {
      if (eq > 0) throw new UsageError(`flag --${name} takes no value`);
      text = "true";
    } else if (eq > 0) text = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--"))
        throw new UsageError(`flag --${name} needs a value (--${name} ${s.value})`);
      text = next;
      i++;
    }
    const values = given.get(s) ?? [];
    if (values.length > 0 && !s.repeatable) throw new UsageError(`flag --${name} is given twice`);
    values.push(parseValue(s, text, `--${name}`));
    given.set(s, values);
  }
  if (!help && positionals.length > positionalSpec.length) {
    const extra = positionals[positionalSpec.length]!;
    const takes =
      positionalSpec.length === 0
        ? `${command} takes no arguments`
        : `${command} takes ${positionalSpec.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`)).join(" ")}`;
    throw new UsageError(`unexpected argument "${extra}" (${takes}; run tsclaw ${command} --help)`);
  }
  const missing = help ? undefined : positionalSpec.slice(positionals.length).find((p) => p.required);
  if (missing) throw new UsageError(`missing <${missing.name}>; run tsclaw ${command} --help`);

  const get = <T>(flag: string): T | undefined => {
    const s = settingOf(command, flag);
    if (!s) throw new Error(`${command} has no flag --${flag}`); // a programming error, not the user's
    const values = given.get(s);
    if (values) return (s.repeatable ? values : values[0]) as T;
    const raw = s.env ? env[s.env] : undefined;
    if (raw === undefined || raw === "") return undefined;
    if (!s.repeatable) return parseValue(s, raw, s.env!) as T;
    const list = raw.split(",").map((v) => v.trim());
    return list.filter(Boolean).map((v) => parseValue(s, v, s.env!)) as T;
  };
  return {
    command,
    positionals,
    help,
    get,
    given: (flag) => [...given.keys()].some((s) => s.flag === flag),
    clawOptions: () => {
      let options: ClawOptions = {};
      for (const s of settingsOf(command)) {
        const value = s.option ? get(s.flag) : undefined;
        if (value !== undefined) options = mergeOptions(options, s.option!(value));
      }
      return options;
    },
  };
}
