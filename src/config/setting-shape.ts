/** The shape of one setting of the config table, and the command groups entries name. */
import type { ClawOptions } from "./claw-options.js";
import { DEFAULTS, formatBytes } from "./defaults.js";
import type { Parser } from "./parsers.js";

/** The commands of the `tsclaw` CLI that take flags. */
export type Command = "serve" | "stdio" | "mcp" | "do" | "tail" | "doc";

/** One setting. */
export interface Setting<T = unknown> {
  /** Flag name without the leading dashes, kebab-case. */
  flag: string;
  /** Environment variable read when the flag is absent. */
  env?: string;
  /** Placeholder of the value in help ("ADDR"); absent for a flag that takes no value. */
  value?: string;
  /** One line of help. */
  help: string;
  /** The default as help shows it; absent when there is none. */
  default?: string;
  /** Commands that accept the flag. */
  commands: readonly Command[];
  /** Parses the flag's or variable's text. Flags without a value get "true". */
  parse: Parser<T>;
  /** May be given several times (the variable then holds a comma-separated list). */
  repeatable?: boolean;
  /** Where the value goes in createClaw's options; createClaw reads these variables itself. */
  option?(value: T): ClawOptions;
  /** What people type instead (`-p`, `--port`), so the error can point at this flag. */
  alsoTyped?: readonly string[];
}

/** Every setting, types erased (the table's element type). */
export type AnySetting = Setting<unknown>;

export function setting<T>(s: Setting<T>): AnySetting {
  return s as AnySetting;
}

/** Commands that open a claw (and so take its flags). */
export const CLAW: readonly Command[] = ["serve", "stdio", "mcp"];
/** Commands that talk to a running server. */
export const CLIENT: readonly Command[] = ["do", "tail"];
/** The parser of a flag that takes no value. */
export const flagOnly: Parser<boolean> = () => true;
/** The payload limit as people read it, for help texts. */
export const maxPayload = formatBytes(DEFAULTS.maxPayloadBytes);
