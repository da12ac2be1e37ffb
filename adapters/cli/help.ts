/** Help text and the README flag table, both rendered from the config table. */
import { type AnySetting, type Command, SETTINGS, settingsOf } from "../../src/config/settings.js";

function usage(s: AnySetting): string {
  return `--${s.flag}${s.value ? ` ${s.value}` : ""}`;
}

/** The flag lines of a command's help: the flag, its meaning, then its variable and default. */
export function flagsHelp(command: Command): string {
  const lines: string[] = [];
  for (const s of settingsOf(command)) {
    lines.push(`  ${usage(s).padEnd(24)} ${s.help}`);
    const extra = [s.env && `env ${s.env}`, s.default && `default ${s.default}`].filter(Boolean);
    if (extra.length > 0) lines.push(`  ${"".padEnd(24)} ${extra.join(" · ")}`);
  }
  lines.push(`  ${"--help, -h".padEnd(24)} this help`);
  return `${lines.join("\n")}\n`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

/** The README's flag table: every setting, its variable, default and the commands taking it. */
export function flagsMarkdown(): string {
  const rows = SETTINGS.map(
    (s) =>
      `| \`${usage(s)}\` | ${s.env ? `\`${s.env}\`` : ""} | ${cell(s.default ?? "")} | ${s.commands.join(", ")} | ${cell(s.help)} |`,
  );
  return ["| flag | variable | default | commands | meaning |", "|---|---|---|---|---|", ...rows, ""].join("\n");
}
