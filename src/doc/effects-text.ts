/** Lines of /doc per operation saying what a call may do and what a scoped token may do with it, from its definition. */
import type { OpFlags, OpScope } from "../ops/registry.js";

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

const SCOPE_WORDS: Readonly<Record<OpScope, string>> = {
  bus: "on their own buses only",
  task: "on their own task only",
  session_read: "on their own session only",
  approve: 'only with the scope "approve" (never an agent\'s own token)',
  any: "allowed",
  none: "refused",
};

/** e.g. "Scoped tokens (an agent's \`CLAW_TOKEN\`): on their own buses only." */
export function scopeLine(scope: OpScope): string {
  return `Scoped tokens (an agent's \`CLAW_TOKEN\`): ${SCOPE_WORDS[scope]}.`;
}
