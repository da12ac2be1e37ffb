/**
 * The server token of `tsclaw serve`: `--token-file F`, `--token T` or `CLAW_TOKEN`; otherwise
 * generated at the first start into `<db>.token` beside the database (mode 0600) and reused on
 * later starts; for `:memory:` kept in memory only. The CLI's client commands read the same file.
 */

import { closeSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { storeKind } from "../../src/config/store-url.js";
import { generateToken, validateToken } from "../security.js";

/** The token a server runs with, and how to talk about it. */
export interface ServerToken {
  token: string;
  /** True when this start generated it (the only time the token itself is printed). */
  generated: boolean;
  /** The banner line after "token:". */
  banner: string;
  /** Where a local caller finds it (for 401 messages and /doc). */
  hint: string;
  /** Extra warnings to print (loose file mode, token on the command line). */
  warnings: string[];
  /** The file holding it, if any: hidden from bash scripts (an empty file in their view under bwrap). */
  file?: string;
}

/** Where the token of a database lives; undefined for `:memory:` and database URLs. */
export function tokenFilePath(db: string): string | undefined {
  if (db === ":memory:" || db === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(db)) return undefined;
  return `${resolve(db)}.token`;
}

/** Reads a token file: one line, surrounding line breaks ignored; refuses a blank one. */
export function readTokenFile(path: string): { token: string; warnings: string[] } {
  const text = readFileSync(path, "utf8").replace(/^[\r\n]+|[\r\n]+$/g, "");
  const token = validateToken(text, `the file ${path}`);
  const mode = statSync(path).mode & 0o777;
  const warnings =
    (mode & 0o077) !== 0
      ? [`the token file ${path} is readable by others (mode ${mode.toString(8)}); chmod 600 it`]
      : [];
  return { token, warnings };
}

/** What the command line says about the token, before any file is touched. */
export interface TokenChoice {
  /** --token-file (or CLAW_TOKEN_FILE) */
  file?: string;
  /** Where `file` came from, for the banner. Default: "--token-file" */
  fileFrom?: "--token-file" | "CLAW_TOKEN_FILE";
  /** --token on the command line only (undefined when not given; "" when given empty) */
  flag?: string;
  /** CLAW_TOKEN (undefined when unset; "" when set empty) */
  env?: string;
}

/**
 * Nodes on one PostgreSQL database must share one token, and no file beside a URL exists to
 * keep a generated one: the token has to be given.
 */
const POSTGRES_NEEDS_TOKEN =
  "with a postgres:// database the token must be given, the same on every node: --token-file F or CLAW_TOKEN (for example: openssl rand -hex 32 > claw.token; chmod 600 claw.token)";

/**
 * Validates explicit tokens up front, so a blank one fails before the database is opened, and
 * that a postgres:// database has one.
 */
export function checkTokenChoice(choice: TokenChoice, db?: string): void {
  const given = [choice.file !== undefined, choice.flag !== undefined].filter(Boolean).length;
  if (given > 1) throw new Error("give the token once: --token-file or --token, not both");
  if (choice.file !== undefined && choice.file.trim() === "") throw new Error("--token-file needs a file name");
  if (choice.flag !== undefined) validateToken(choice.flag, "--token");
  else if (choice.file === undefined && choice.env !== undefined)
    validateToken(choice.env, "CLAW_TOKEN (unset it to use the token file beside the database)");
  if (db !== undefined && choice.file === undefined && choice.flag === undefined && choice.env === undefined) {
    if (storeKind(db) === "postgres") throw new Error(POSTGRES_NEEDS_TOKEN);
  }
}

/** Resolves the server token; may create `<db>.token`. Throws with a clear message. */
export function resolveServerToken(choice: TokenChoice, db: string): ServerToken {
  checkTokenChoice(choice);
  if (choice.file !== undefined) {
    const path = resolve(choice.file);
    const { token, warnings } = readTokenFile(path);
    return {
      token,
      generated: false,
      banner: `in ${path} (${choice.fileFrom ?? "--token-file"})`,
      hint: `the token is in ${path}`,
      warnings,
      file: path,
    };
  }
  if (choice.flag !== undefined) {
    return {
      token: choice.flag,
      generated: false,
      banner: "from --token",
      hint: "the token is the one given to tsclaw serve with --token",
      warnings: ["--token puts the token on the command line; prefer --token-file F or CLAW_TOKEN"],
    };
  }
  if (choice.env !== undefined) {
    return {
      token: choice.env,
      generated: false,
      banner: "from CLAW_TOKEN",
      hint: "the token is the CLAW_TOKEN tsclaw serve was started with",
      warnings: [],
    };
  }
  const path = tokenFilePath(db);
  if (path === undefined && storeKind(db) === "postgres") throw new Error(POSTGRES_NEEDS_TOKEN);
  if (path === undefined) {
    const token = generateToken();
    return {
      token,
      generated: true,
      banner: `${token}  (generated for this run only: the database is ${db}; --token-file keeps one)`,
      hint: "the token was printed by tsclaw serve at startup",
      warnings: [],
    };
  }
  return tokenFromDbFile(path);
}

function tokenFromDbFile(path: string): ServerToken {
  const hint = `the token is in ${path}`;
  const token = generateToken();
  let fd: number;
  try {
    // Exclusive create with 0600: never follows a planted symlink, never widens an existing file.
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST")
      throw new Error(`cannot create the token file ${path}: ${(err as Error).message}`);
    const existing = readTokenFile(path);
    return {
      token: existing.token,
      generated: false,
      banner: `in ${path}`,
      hint,
      warnings: existing.warnings,
      file: path,
    };
  }
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  return {
    token,
    generated: true,
    banner: `${token}  (generated; saved in ${path}, mode 0600, reused on later starts)`,
    hint,
    warnings: [],
    file: path,
  };
}
