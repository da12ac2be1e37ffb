/** One line of /doc per operation saying what a call may do, from the operation's declared flags. */
import type { OpFlags } from "../registry.js";

/** e.g. "Effects: read-only, idempotent, closed-world (MCP annotations carry the same flags)." */
export function effectsLine(flags: OpFlags): string {
  const words = [
    flags.readOnly ? "read-only" : "writes",
    flags.destructive ? "destructive" : "non-destructive",
    flags.idempotent ? "idempotent" : "not idempotent",
    flags.openWorld ? "open-world (reaches a model provider or the host)" : "closed-world",
  ];
  return `Effects: ${words.join(", ")}. MCP tool annotations carry the same flags.`;
}
