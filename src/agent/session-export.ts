/**
 * Session export: readable Markdown, or JSON lines (a session header, then one message per line,
 * each with the provider's raw output `item` where there is one).
 */
import type { Message, Session } from "./session-schemas.js";

/** Export formats. */
export type ExportFormat = "markdown" | "jsonl";

/** Renders a session and its messages. */
export function exportSession(session: Session, messages: readonly Message[], format: ExportFormat): string {
  if (format === "jsonl") {
    return (
      [
        JSON.stringify({ type: "session", ...session }),
        ...messages.map((m) => JSON.stringify({ type: "message", ...m })),
      ].join("\n") + "\n"
    );
  }
  const out: string[] = [
    `# Session ${session.name ?? session.sessionKey}`,
    "",
    `- id: \`${session.sessionId}\``,
    `- key: \`${session.sessionKey}\``,
    `- model: \`${session.model}\` (${session.provider})`,
    `- bus: \`${session.bus}\``,
    `- created: ${new Date(session.createdAt).toISOString()}`,
    "",
  ];
  for (const m of messages) out.push(...renderMessage(m), "");
  return out.join("\n");
}

function fence(value: unknown): string[] {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  const ticks = text.includes("```") ? "````" : "```";
  return [`${ticks}json`, text, ticks];
}

function renderMessage(m: Message): string[] {
  switch (m.role) {
    case "user":
      return ["## User", "", m.text ?? ""];
    case "assistant": {
      const label = [m.phase === "commentary" ? "commentary" : "", m.refusal ? "refusal" : ""].filter(Boolean);
      return [`## Assistant${label.length > 0 ? ` (${label.join(", ")})` : ""}`, "", m.text ?? ""];
    }
    case "reasoning":
      return m.text ? ["### Reasoning (summary)", "", m.text] : ["### Reasoning (encrypted, no summary)"];
    case "item":
      return [`### Output item \`${m.name ?? "unknown"}\``, "", ...fence(m.item ?? {})];
    case "summary":
      return ["## Summary (compacted history)", "", m.text ?? ""];
    case "tool_call":
      return [`### Tool call \`${m.name ?? "bash"}\` (${m.callId})`, "", ...fence(m.args ?? {})];
    case "tool_result":
      return [`### Tool result (${m.callId})${m.isError ? " — error" : ""}`, "", ...fence(m.result ?? null)];
  }
}
