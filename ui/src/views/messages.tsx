/**
 * A session's messages as a conversation: user and assistant text, each tool call with its bash
 * result beneath it (long output collapsed), reasoning summaries and compaction summaries.
 */
import type { OpOutput } from "../../../src/client.js";
import { pretty } from "../format.js";
import { LongText } from "../parts/common.js";

/** A stored message. */
export type Message = OpOutput<"get_messages">["messages"][number];

interface BashResult {
  stdout?: string;
  stderr?: string;
  exitCode?: number | null;
  timeout?: boolean;
  error?: { code: string; message: string };
}

function ToolResult({ m, output }: { m: Message | undefined; output?: string }) {
  if (!m)
    return (
      <div class="result running">
        <span class="sub">running…</span>
        {output ? <pre class="out live-output">{output}</pre> : null}
      </div>
    );
  const r = (m.result ?? {}) as BashResult;
  if (r.error)
    return (
      <p class="error">
        <code>{r.error.code}</code> {r.error.message}
      </p>
    );
  return (
    <div class={m.isError ? "result bad" : "result"}>
      <span class="sub">
        exit {String(r.exitCode ?? "—")}
        {r.timeout ? " · timed out" : ""}
      </span>
      {r.stdout ? <LongText text={r.stdout} label="stdout" /> : null}
      {r.stderr ? <LongText text={r.stderr} label="stderr" /> : null}
    </div>
  );
}

function ToolCall({ m, result, output }: { m: Message; result: Message | undefined; output?: string }) {
  const args = m.args as { script?: string } | undefined;
  return (
    <div class="msg tool" data-role="tool_call">
      <div class="role">
        {m.name ?? "tool"} <code class="sub">{m.callId}</code>
      </div>
      {args?.script !== undefined ? (
        <LongText text={args.script} label="script" />
      ) : (
        <pre class="json">{pretty(m.args)}</pre>
      )}
      <ToolResult m={result} output={output} />
    </div>
  );
}

/**
 * The messages, with results folded under their calls; `running` holds the output so far of
 * calls that have no result yet, by callId.
 */
export function Messages({ messages, running }: { messages: Message[]; running?: Map<string, string> }) {
  const results = new Map(messages.filter((m) => m.role === "tool_result").map((m) => [m.callId, m]));
  return (
    <div class="messages">
      {messages.map((m) => {
        if (m.role === "tool_result")
          return results.has(m.callId) &&
            messages.some((c) => c.role === "tool_call" && c.callId === m.callId) ? null : (
            <ToolResult key={m.id} m={m} />
          );
        if (m.role === "tool_call")
          return (
            <ToolCall
              key={m.id}
              m={m}
              result={results.get(m.callId)}
              output={m.callId ? running?.get(m.callId) : undefined}
            />
          );
        if (m.role === "reasoning")
          return m.text ? (
            <div key={m.id} class="msg reasoning" data-role="reasoning">
              <div class="role">reasoning</div>
              <LongText text={m.text} label="reasoning" lines={6} />
            </div>
          ) : null;
        if (m.role === "item")
          return (
            <div key={m.id} class="msg item" data-role="item">
              <div class="role">{m.name ?? "item"}</div>
            </div>
          );
        return (
          <div key={m.id} class={`msg ${m.role}`} data-role={m.role}>
            <div class="role">
              {m.role}
              {m.refusal ? " (refusal)" : ""}
            </div>
            <LongText text={m.text ?? ""} label={m.role} lines={40} />
          </div>
        );
      })}
    </div>
  );
}
