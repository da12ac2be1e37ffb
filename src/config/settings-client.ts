/** Part of the config table (assembled in settings.ts): settings of the client commands (do, tail) that talk to a running server. */
import { DEFAULTS } from "./defaults.js";
import { httpUrl, nonNegativeInt, positiveInt, text } from "./parsers.js";
import { type AnySetting, CLIENT, flagOnly, setting } from "./setting-shape.js";

/** Settings of the client commands (do, tail) that talk to a running server. */
export const CLIENT_SETTINGS: readonly AnySetting[] = [
  setting({
    flag: "url",
    env: "CLAW_URL",
    value: "URL",
    help: "the server (for mcp: relay to its /mcp instead of opening a database)",
    default: DEFAULTS.url,
    commands: [...CLIENT, "doc", "mcp"],
    parse: httpUrl,
  }),
  setting({
    flag: "token",
    env: "CLAW_TOKEN",
    value: "T",
    help: "bearer token (sent to any URL)",
    default: "the token file of --db, for a loopback URL only",
    commands: [...CLIENT, "mcp"],
    parse: text,
  }),
  setting({
    flag: "token-file",
    env: "CLAW_TOKEN_FILE",
    value: "F",
    help: "file holding the bearer token, e.g. /abs/path/claw.db.token (sent to any URL, like --token)",
    default: "",
    commands: [...CLIENT, "mcp"],
    parse: text,
  }),
  setting({
    flag: "db",
    env: "CLAW_DB",
    value: "PATH",
    help: "the server's database: its token is read from PATH.token and sent to a loopback URL only",
    default: DEFAULTS.db,
    commands: CLIENT,
    parse: text,
  }),
  setting({
    flag: "pretty",
    help: "indent the result (default when stdout is a terminal)",
    commands: ["do"],
    parse: flagOnly,
  }),
  setting({
    flag: "op",
    value: "NAME",
    help: "print only this operation's section",
    commands: ["doc"],
    parse: text,
  }),
  setting({
    flag: "section",
    value: "NAME",
    help: "print only this section (the guide's intro names them: server, errors, bus, run, …)",
    commands: ["doc"],
    parse: text,
  }),
  setting({
    flag: "after",
    value: "N",
    help: "start after seq N (0: the whole retained history; default: only new events)",
    commands: ["tail"],
    parse: nonNegativeInt,
  }),
  setting({
    flag: "count",
    value: "N",
    help: "exit 0 after printing N events",
    commands: ["tail"],
    parse: positiveInt,
  }),
];
