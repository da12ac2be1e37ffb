/**
 * The one table of settings: every command-line flag, its environment variable, default, parser
 * and help text. Flag parsing, `--help`, the README flag list and createClaw()'s reading of
 * CLAW_* variables all derive from it, so a new flag is one entry here.
 */

import { SANDBOX_MODES, type SandboxMode } from "../bash/sandbox.js";
import type { ClawOptions } from "../config.js";
import { DEFAULTS, formatBytes } from "./defaults.js";
import {
  anyText,
  boolean,
  duration,
  httpUrl,
  listenAddress,
  nonNegativeInt,
  oneOf,
  origin,
  type Parser,
  positiveInt,
  retentionAge,
  text,
} from "./parsers.js";

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

function setting<T>(s: Setting<T>): AnySetting {
  return s as AnySetting;
}

const CLAW: readonly Command[] = ["serve", "stdio", "mcp"];
const CLIENT: readonly Command[] = ["do", "tail"];
const flagOnly: Parser<boolean> = () => true;
const maxPayload = formatBytes(DEFAULTS.maxPayloadBytes);

/** The table, in the order help and the README list it. */
export const SETTINGS: readonly AnySetting[] = [
  // serve
  setting({
    flag: "listen",
    env: "CLAW_LISTEN",
    value: "ADDR",
    help: '[host]:port to listen on; ":8000" binds all interfaces, "127.0.0.1:0" a free loopback port',
    default: DEFAULTS.listen,
    commands: ["serve"],
    parse: listenAddress,
    alsoTyped: ["port", "p", "host", "bind", "address", "addr"],
  }),
  setting({
    flag: "token-file",
    env: "CLAW_TOKEN_FILE",
    value: "F",
    help: "file holding the bearer token every peer, loopback included, must send",
    default: "<db>.token, generated (mode 0600) at the first start",
    commands: ["serve"],
    parse: text,
  }),
  setting({
    flag: "token",
    env: "CLAW_TOKEN",
    value: "T",
    help: "the bearer token itself (visible in ps: prefer --token-file); an empty or blank one is refused",
    commands: ["serve"],
    parse: anyText,
  }),
  setting({
    flag: "insecure-loopback",
    env: "CLAW_INSECURE_LOOPBACK",
    help: "let peers on this machine in without the token (single-user machines only; printed as a warning)",
    commands: ["serve"],
    parse: boolean,
  }),
  setting({
    flag: "allow-origin",
    env: "CLAW_ALLOW_ORIGIN",
    value: "ORIGIN",
    help: "a browser Origin allowed besides same-origin, e.g. http://localhost:5173 (repeatable; the variable takes a comma-separated list)",
    commands: ["serve"],
    parse: origin,
    repeatable: true,
  }),
  setting({
    flag: "max-connections",
    env: "CLAW_MAX_CONNECTIONS",
    value: "N",
    help: "open connections in total; more are refused (429 too_many_requests) before any work",
    default: `${DEFAULTS.maxConnections}, fewer when the descriptor limit is lower`,
    commands: ["serve"],
    parse: positiveInt,
    option: (maxConnections: number) => ({ limits: { maxConnections } }),
  }),
  setting({
    flag: "max-connections-per-peer",
    env: "CLAW_MAX_CONNECTIONS_PER_PEER",
    value: "N",
    help: "open connections from one peer address (an IPv6 /64 counts as one address)",
    default: String(DEFAULTS.maxConnectionsPerPeer),
    commands: ["serve"],
    parse: positiveInt,
    option: (maxConnectionsPerPeer: number) => ({ limits: { maxConnectionsPerPeer } }),
  }),
  setting({
    flag: "header-timeout",
    env: "CLAW_HEADER_TIMEOUT",
    value: "DUR",
    help: "time a connection may take to send a request's headers (408 request_timeout after)",
    default: `${DEFAULTS.headerTimeoutMs / 1000}s`,
    commands: ["serve"],
    parse: duration,
    option: (headerTimeoutMs: number) => ({ limits: { headerTimeoutMs } }),
  }),
  setting({
    flag: "idle-timeout",
    env: "CLAW_IDLE_TIMEOUT",
    value: "DUR",
    help: "time a keep-alive connection may sit idle between requests",
    default: `${DEFAULTS.idleTimeoutMs / 1000}s`,
    commands: ["serve"],
    parse: duration,
    option: (idleTimeoutMs: number) => ({ limits: { idleTimeoutMs } }),
  }),
  setting({
    flag: "max-calls-per-connection",
    env: "CLAW_MAX_CALLS_PER_CONNECTION",
    value: "N",
    help: "calls in flight on one WebSocket connection (too_many_requests beyond)",
    default: String(DEFAULTS.maxCallsPerConnection),
    commands: ["serve"],
    parse: positiveInt,
    option: (maxCallsPerConnection: number) => ({ limits: { maxCallsPerConnection } }),
  }),
  // every command that opens a database
  setting({
    flag: "db",
    env: "CLAW_DB",
    value: "PATH",
    help: "SQLite database file, or :memory:",
    default: DEFAULTS.db,
    commands: CLAW,
    parse: text,
    option: (db: string) => ({ db }),
    alsoTyped: ["database", "d"],
  }),
  setting({
    flag: "model",
    env: "CLAW_MODEL",
    value: "MODEL",
    help: "default model of new sessions",
    default: `the provider's (${Object.entries(DEFAULTS.providerModels)
      .map(([p, m]) => `${p}: ${m}`)
      .join(", ")})`,
    commands: CLAW,
    parse: text,
    option: (model: string) => ({ model }),
    alsoTyped: ["m"],
  }),
  setting({
    flag: "model-provider",
    env: "CLAW_MODEL_PROVIDER",
    value: "NAME",
    help: `${Object.keys(DEFAULTS.providerModels).join(" | ")} (demo: a built-in offline stand-in, no key; runs one bash command per prompt)`,
    default: DEFAULTS.provider,
    commands: CLAW,
    parse: text,
    option: (provider: string) => ({ provider }),
    alsoTyped: ["provider"],
  }),
  setting({
    flag: "base-url",
    env: "CLAW_BASE_URL",
    value: "URL",
    help: "any Responses-compatible server (default: the provider's)",
    commands: CLAW,
    parse: httpUrl,
    option: (baseURL: string) => ({ baseURL }),
  }),
  setting({
    flag: "project",
    env: "CLAW_PROJECT",
    value: "NAME",
    help: "default project of tasks and memory",
    default: "the current directory's name",
    commands: CLAW,
    parse: text,
    option: (project: string) => ({ project }),
  }),
  setting({
    flag: "name",
    env: "CLAW_NAME",
    value: "NAME",
    help: "human name of this instance (server_identity)",
    default: DEFAULTS.name,
    commands: CLAW,
    parse: text,
    option: (name: string) => ({ name }),
  }),
  setting({
    flag: "durability",
    env: "CLAW_DURABILITY",
    value: "MODE",
    help: "normal (a process crash loses nothing acknowledged) | full (fsync every commit: power loss too)",
    default: DEFAULTS.durability,
    commands: CLAW,
    parse: oneOf(["normal", "full"]),
    option: (durability: "normal" | "full") => ({ durability }),
  }),
  setting({
    flag: "sandbox",
    env: "CLAW_SANDBOX",
    value: "MODE",
    help: "auto (bwrap when it works here, else none) | bwrap (own PID namespace and /proc per call) | landlock (unavailable from Node) | none",
    default: DEFAULTS.sandbox,
    commands: CLAW,
    parse: oneOf(SANDBOX_MODES),
    option: (sandbox: SandboxMode) => ({ sandbox }),
  }),
  setting({
    flag: "bus-max-events",
    env: "CLAW_BUS_MAX_EVENTS",
    value: "N",
    help: "keep at most the N newest events per bus",
    default: "all",
    commands: CLAW,
    parse: positiveInt,
    option: (maxEvents: number) => ({ retention: { maxEvents } }),
  }),
  setting({
    flag: "bus-max-age",
    env: "CLAW_BUS_MAX_AGE",
    value: "DUR",
    help: 'delete events older than DUR ("72h", "30m"; 1s to 100 years)',
    default: "never",
    commands: CLAW,
    parse: retentionAge,
    option: (maxAgeMs: number) => ({ retention: { maxAgeMs } }),
  }),
  setting({
    flag: "max-payload-bytes",
    env: "CLAW_MAX_PAYLOAD_BYTES",
    value: "N",
    help: "largest event payload (JSON text), for every publisher",
    default: `${DEFAULTS.maxPayloadBytes} (${maxPayload})`,
    commands: CLAW,
    parse: positiveInt,
    option: (maxPayloadBytes: number) => ({ limits: { maxPayloadBytes } }),
  }),
  setting({
    flag: "max-request-bytes",
    env: "CLAW_MAX_REQUEST_BYTES",
    value: "N",
    help: "largest request body, WebSocket message and stdio line",
    default: `${DEFAULTS.maxRequestBytes} (${formatBytes(DEFAULTS.maxRequestBytes)})`,
    commands: CLAW,
    parse: positiveInt,
    option: (maxRequestBytes: number) => ({ limits: { maxRequestBytes } }),
  }),
  setting({
    flag: "max-subscriptions",
    env: "CLAW_MAX_SUBSCRIPTIONS",
    value: "N",
    help: "subscriptions one WebSocket or stdio connection may hold",
    default: String(DEFAULTS.maxSubscriptions),
    commands: CLAW,
    parse: positiveInt,
    option: (maxSubscriptions: number) => ({ limits: { maxSubscriptions } }),
  }),
  setting({
    flag: "max-bash",
    env: "CLAW_MAX_BASH",
    value: "N",
    help: "bash processes at once (too_many_requests beyond)",
    default: String(DEFAULTS.maxBashProcesses),
    commands: CLAW,
    parse: positiveInt,
    option: (maxBashProcesses: number) => ({ limits: { maxBashProcesses } }),
  }),
  setting({
    flag: "max-bash-events",
    env: "CLAW_MAX_BASH_EVENTS",
    value: "N",
    help: "line events one bash call publishes (later lines are counted in eventsDropped)",
    default: String(DEFAULTS.maxEventsPerCall),
    commands: CLAW,
    parse: positiveInt,
    option: (maxEventsPerCall: number) => ({ limits: { maxEventsPerCall } }),
  }),
  setting({
    flag: "bash-output-bytes",
    env: "CLAW_BASH_OUTPUT_BYTES",
    value: "N",
    help: "captured stdout and stderr per bash call (the tail is kept; every line is still published)",
    default: `${DEFAULTS.bashOutputBytes} (${formatBytes(DEFAULTS.bashOutputBytes)})`,
    commands: CLAW,
    parse: positiveInt,
    option: (bashOutputBytes: number) => ({ limits: { bashOutputBytes } }),
  }),
  setting({
    flag: "max-turns",
    env: "CLAW_MAX_TURNS",
    value: "N",
    help: "model turns per run before it ends with turn_limit",
    default: String(DEFAULTS.maxTurns),
    commands: CLAW,
    parse: positiveInt,
    option: (maxTurns: number) => ({ maxTurns }),
  }),
  // client commands
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

/** The settings a command accepts, in table order. */
export function settingsOf(command: Command): AnySetting[] {
  return SETTINGS.filter((s) => s.commands.includes(command));
}
