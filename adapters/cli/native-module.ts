/**
 * Explains a failure to load better-sqlite3's native module, the usual one being a build for
 * another Node (an MCP client or a version manager that starts a different `node` than the one
 * `npm install` ran with). Node's own message names ABI numbers only; this one names the Node
 * versions and the command that fixes it.
 */

/** Node major versions by NODE_MODULE_VERSION (process.versions.modules). */
const NODE_OF_ABI: Record<string, string> = {
  "93": "16",
  "102": "17",
  "108": "18",
  "111": "19",
  "115": "20",
  "120": "21",
  "127": "22",
  "131": "23",
  "137": "24",
  "141": "25",
};

const nodeOf = (abi: string) => (NODE_OF_ABI[abi] ? `Node ${NODE_OF_ABI[abi]}` : `NODE_MODULE_VERSION ${abi}`);

/**
 * A several-line explanation when `err` is better-sqlite3 failing to load for this Node, else
 * undefined (the caller prints the error's own message).
 */
export function explainNativeModuleError(err: Error): string | undefined {
  const text = err.message;
  if (!/better[-_]sqlite3/.test(text)) return undefined;
  const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/.exec(text);
  const missing = /Could not locate the bindings file|invalid ELF header|cannot open shared object/.exec(text);
  if (!abi && !missing) return undefined;
  // The package directory that holds node_modules/better-sqlite3: where the rebuild runs.
  const dir = /'?(\/[^'\n]*?)\/node_modules\/better-sqlite3\//.exec(text)?.[1];
  const rebuild = dir ? `(cd ${dir} && npm rebuild better-sqlite3)` : "npm rebuild better-sqlite3";
  const what = abi
    ? `better-sqlite3 (the SQLite driver) was built for ${nodeOf(abi[1]!)}, but this is Node ${process.version} (${process.execPath})`
    : `better-sqlite3 (the SQLite driver) has no build for Node ${process.version} (${process.execPath})`;
  return [
    `${what}.`,
    `  Fix: rebuild it with this Node: ${rebuild}`,
    "  or run tsclaw with the Node it was built for (an MCP client may start another node than your shell: give it that node's full path).",
    "  tsclaw mcp --url, do and tail need no native module: they talk to a running tsclaw serve.",
  ].join("\n");
}
