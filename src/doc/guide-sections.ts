/**
 * Contract sections of the /doc guide (bus, bash templates, session events; the task contracts
 * are in guide-task-sections.ts), each with a worked example. `{NAME}` placeholders are filled
 * from the server's configuration (guide-context.ts); the registry test checks the headings.
 */
import { agentEventsDoc } from "../agent/agent-events.js";
import { COMPLETION, RUN } from "./guide-task-sections.js";

const DO = `curl -s {URL}/do -H "Authorization: Bearer $CLAW_TOKEN" -H 'Content-Type: application/json' -d`;

const BUS = `## The bus

An event is \`{bus, seq, ts, payload}\`; the payload is any JSON value ({MAX_PAYLOAD} at most on this
server, for every publisher).
A bus name is 1–200 characters of \`A-Z a-z 0-9 . _ : -\`; the default bus is \`{BUS}\`. Buses
exist as soon as something is published to them.

- \`seq\` is per bus, starts at 1 and grows by one per event, so a jump tells you events in
  between were trimmed (\`trim_bus\` or retention). Seqs are never reused.
- \`out\` returns after the event is committed; a crash of the server afterwards loses nothing.
- Read with a cursor: \`read\` returns events with \`seq > after\`; pass the returned \`next\` as
  the next \`after\`. \`lastSeq\` is the bus's newest seq. With \`waitMs\`, \`read\` waits until an
  event after the cursor exists (a long poll), then returns at once.
- \`subscribe\` (WebSocket, stdio) and \`GET /bus/<name>/events\` (SSE) deliver events in seq
  order: with \`after\` first the backlog, then live events, with nothing lost or repeated at the
  seam. Remember the last seq you handled and resume with \`after\` = that seq.

Worked example — publish two events, then follow the bus from the start:

\`\`\`sh
${DO} '{"op":"out","args":{"bus":"jobs","payload":{"step":"build","ok":true}}}'
# {"id":null,"ok":true,"result":{"bus":"jobs","seq":1,"ts":1767225600000}}
${DO} '{"op":"out","args":{"bus":"jobs","payload":{"step":"test","ok":false}}}'
# {"id":null,"ok":true,"result":{"bus":"jobs","seq":2,"ts":1767225600042}}
${DO} '{"op":"read","args":{"bus":"jobs","after":0}}'
# {"id":null,"ok":true,"result":{"bus":"jobs","events":[
#    {"bus":"jobs","seq":1,"ts":1767225600000,"payload":{"step":"build","ok":true}},
#    {"bus":"jobs","seq":2,"ts":1767225600042,"payload":{"step":"test","ok":false}}],
#  "lastSeq":2,"next":2}}
# Wait up to 30 s for the next event after seq 2:
${DO} '{"op":"read","args":{"bus":"jobs","after":2,"waitMs":30000}}'
# The same stream as Server-Sent Events (Ctrl-C to stop):
curl -sN '{URL}/bus/jobs/events?after=0' -H "Authorization: Bearer $CLAW_TOKEN"
# id: 1
# data: {"bus":"jobs","seq":1,"ts":1767225600000,"payload":{"step":"build","ok":true}}
\`\`\`

Over WebSocket, send \`{"op":"subscribe","args":{"bus":"jobs","after":0},"id":"s1"}\`; the answer
\`{"id":"s1","ok":true,"result":{"sub":"sub_1a2b3c4d","bus":"jobs","lastSeq":2}}\` is followed by
one frame per event: \`{"event":"bus","sub":"sub_1a2b3c4d","bus":"jobs","seq":1,"ts":…,"payload":…}\`.
`;

const BASH = `## Bash templates

\`bash\` runs a script with \`bash -c\` and returns \`{stdout, stderr, exitCode, timeout}\` when it
ends. \`timeout\` is seconds (a number) or a duration such as \`"300ms"\`, \`"1.5s"\`, \`"2m"\`,
\`"1h30m"\` (default 600 s); on timeout the whole process group, grandchildren included, is killed
and \`timeout\` is true. \`cwd\`, \`env\` (merged over the server's environment; provider API keys
are removed) and \`stdin\` are optional. Captured stdout and stderr keep the last {BASH_OUTPUT} each
(\`truncated: true\` says so). If the caller goes away, the process group is killed.

Four optional specs publish events while it runs, each \`{template, bus?}\` (bus default
\`{BUS}\`): \`stdoutLineEvent\` (one event per stdout line), \`stderrLineEvent\` (per stderr line),
\`exitEvent\` (the exit code) and \`timeoutEvent\` (always published at the end, \`true\` or
\`false\`). The template is any JSON value: every string that is exactly \`"{payload}"\` becomes
the value itself (a line as a string, the exit code as a number, the timeout flag as a boolean);
\`"{payload}"\` inside a longer string becomes the value's text. Lines are split on \`\\n\` (a
trailing \`\\r\` removed; a last line without newline counts). Every event is committed, in
order, before the result is returned, so a \`read\` right after sees them all.

Worked example:

\`\`\`sh
${DO} '{"op":"bash","args":{"script":"printf '"'"'alpha\\\\nbeta\\\\n'"'"'; echo warn >&2; exit 2",
  "stdoutLineEvent":{"template":{"line":"{payload}","msg":"out: {payload}"},"bus":"build"},
  "stderrLineEvent":{"template":{"err":"{payload}"},"bus":"build"},
  "exitEvent":{"template":{"exit":"{payload}","text":"exit {payload}"},"bus":"build"},
  "timeoutEvent":{"template":{"timedOut":"{payload}"},"bus":"build"}}}'
# {"id":null,"ok":true,"result":{"stdout":"alpha\\nbeta\\n","stderr":"warn\\n","exitCode":2,"timeout":false}}
\`\`\`

The bus \`build\` then holds, in this order (stdout and stderr lines interleave as they come):

\`\`\`json
{"seq":1,"payload":{"line":"alpha","msg":"out: alpha"}}
{"seq":2,"payload":{"line":"beta","msg":"out: beta"}}
{"seq":3,"payload":{"err":"warn"}}
{"seq":4,"payload":{"exit":2,"text":"exit 2"}}
{"seq":5,"payload":{"timedOut":false}}
\`\`\`
`;

const SESSIONS = `## Session events

A session is a conversation with an agent whose only tool is bash:
\`{sessionId, sessionKey, name, bus, model, provider, createdAt, updatedAt}\`. \`sessionKey\` is your
name for it: \`start_session\` with a known key returns that session, so you can continue a
conversation across processes. Every session argument accepts \`sessionId\` or \`sessionKey\`.
\`prompt\` waits for the run to end and returns \`{status, text, usage, turns, toolCalls}\`;
a session runs one thing at a time, so a prompt (or task, or \`compact\`) sent while it is busy is
stored and runs in its turn. \`steer\` (at the next turn boundary) and \`follow_up\` (when the run
would end) queue messages into a running session; every acknowledged message is stored first and
delivered exactly once, across restarts. \`abort\` stops whatever runs (a compaction too, leaving
the history unchanged). Every output item of the model (reasoning, calls, messages with their
\`phase\`, refusals) is stored as sent and sent back unchanged on the next turn (\`get_messages\`
shows them, with the raw \`item\`). A run cut off by the provider ends \`error\` with
\`model_incomplete\`; quota, auth and bad-request errors end it at once with \`provider_error\`
and the provider's code in \`details.providerCode\`.

**Turn limit.** A turn is one model response; a run takes one turn, plus one more after each
round of bash calls. A run that reaches {MAX_TURNS} turns (this server's \`--max-turns\`)
without a final answer ends with status \`error\` and code \`turn_limit\`: the model kept
calling bash. Everything it did is kept in the session; \`prompt\` again to let it go on, or
ask for a smaller step.

While a run goes on, its events are published to the session's bus (default \`{BUS}\`), each
payload carrying \`sessionId\` and \`runId\` (and \`taskId\` when the run is a task):

- lifecycle events, one \`type\` each:
${agentEventsDoc("  ")}
- the raw Responses stream events of tool calls, with their own \`type\`:
  \`response.output_item.added\` / \`response.output_item.done\` (items of type \`function_call\`),
  \`response.function_call_arguments.delta\`, \`response.function_call_arguments.done\`;
- text deltas (\`response.output_text.delta\`) only when the session has \`streamText: true\`.

Worked example — a session on its own bus, one prompt that runs \`ls\`:

\`\`\`sh
${DO} '{"op":"start_session","args":{"sessionKey":"demo","bus":"demo-bus"}}'
${DO} '{"op":"prompt","args":{"sessionKey":"demo","message":"List the files"}}'
# {"ok":true,"result":{"sessionId":"ses_c27f…","runId":"run_2963…","status":"completed",
#   "text":"Two files: a.txt and b.txt","usage":{"input":20,"output":10,"total":30},"turns":2,"toolCalls":1}}
${DO} '{"op":"read","args":{"bus":"demo-bus","after":0}}'
\`\`\`

The payloads on \`demo-bus\`, in seq order (ids shortened; each also has \`sessionId\` and \`runId\`):

\`\`\`json
{"type":"agent_start","message":"List the files","model":"{MODEL}","provider":"{PROVIDER}"}
{"type":"message","role":"user","text":"List the files"}
{"type":"turn_start","turn":1}
{"type":"response.output_item.added","item":{"type":"function_call","name":"bash","call_id":"call_1","arguments":""}}
{"type":"response.function_call_arguments.delta","delta":"{\\"script\\":\\"ls\\"}"}
{"type":"response.function_call_arguments.done","name":"bash","arguments":"{\\"script\\":\\"ls\\"}"}
{"type":"response.output_item.done","item":{"type":"function_call","name":"bash","call_id":"call_1","arguments":"{\\"script\\":\\"ls\\"}"}}
{"type":"tool_execution_start","callId":"call_1","name":"bash","args":{"script":"ls"}}
{"type":"tool_execution_end","callId":"call_1","name":"bash","result":{"stdout":"a.txt\\nb.txt\\n","stderr":"","exitCode":0,"timeout":false},"isError":false}
{"type":"turn_start","turn":2}
{"type":"message","role":"assistant","text":"Two files: a.txt and b.txt"}
{"type":"agent_end","status":"completed","text":"Two files: a.txt and b.txt","turns":2,"toolCalls":1}
\`\`\`

Bash run by the agent has \`CLAW_SESSION_ID\`, \`CLAW_SESSION_KEY\`, \`CLAW_BUS\`, \`CLAW_TASK_ID\`
(as a task) and, under \`tsclaw serve\`, \`CLAW_URL\` and \`CLAW_TOKEN\`, so it can call this
service about its own work. That \`CLAW_TOKEN\` is scoped to the run (its session's bus, its own
task, its session's read operations) and revoked when the run ends.
`;

/** The contract sections by the name `GET /doc?section=` takes, in display order. */
export const CONTRACT_SECTIONS: Readonly<Record<string, string>> = {
  bus: BUS,
  bash: BASH,
  sessions: SESSIONS,
  run: RUN,
  completion: COMPLETION,
};
