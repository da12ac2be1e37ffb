/**
 * The one table of settings: every command-line flag, its environment variable, default, parser
 * and help text. Flag parsing, `--help`, the README flag list and createClaw()'s reading of
 * CLAW_* variables all derive from it, so a new flag is one entry here.
 */

import type { AnySetting, Command } from "./setting-shape.js";
import { CLAW_SETTINGS } from "./settings-claw.js";
import { CLIENT_SETTINGS } from "./settings-client.js";
import { SERVE_SETTINGS } from "./settings-serve.js";

export type { AnySetting, Command, Setting } from "./setting-shape.js";

/** The table, in the order help and the README list it. */
export const SETTINGS: readonly AnySetting[] = [...SERVE_SETTINGS, ...CLAW_SETTINGS, ...CLIENT_SETTINGS];

/** The settings a command accepts, in table order. */
export function settingsOf(command: Command): AnySetting[] {
  return SETTINGS.filter((s) => s.commands.includes(command));
}
