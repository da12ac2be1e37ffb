/** tsclaw/stdio: the JSON-lines adapter (lands with the adapters issue). */
export {};
