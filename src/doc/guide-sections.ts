/**
 * Contract sections of the /doc guide (bus, bash templates, session events, run contract,
 * completion contract), each with a worked example. `{URL}` is replaced by the server's URL.
 * Keep these in step with DESIGN.md §4–§7; the registry test checks the headings exist.
 */

const DO = "curl -s {URL}/do -H 'Content-Type: application/json' -d";

const BUS = `## The bus

An event is \`{bus, seq, ts, payload}\`; the payload is any JSON value (1 MiB at most by default).
A bus name is 1–200 characters of \`A-Z a-z 0-9 . _ : -\`; the default bus is \`thebus\`. Buses
exist as soon as something is published to them.

- \`seq\` is per bus, starts at 1 and grows by one per event, so a jump tells you events in
  between were trimmed (\`trim_bus\` or retention). Seqs are never reused.
- \`out\` returns after the event is committed to disk; a crash afterwards loses nothing.
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
curl -sN '{URL}/bus/jobs/events?after=0'
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
are removed) and \`stdin\` are optional. Captured stdout and stderr keep the last 1 MiB each
(\`truncated: true\` says so). If the caller goes away, the process group is killed.

Four optional specs publish events while it runs, each \`{template, bus?}\` (bus default
\`thebus\`): \`stdoutLineEvent\` (one event per stdout line), \`stderrLineEvent\` (per stderr line),
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
\`steer\` (at the next turn boundary) and \`follow_up\` (when the run would end) queue messages
into a running session; \`abort\` stops it. Messages are stored as they complete
(\`get_messages\`).

While a run goes on, its events are published to the session's bus (default \`thebus\`), each
payload carrying \`sessionId\` and \`runId\` (and \`taskId\` when the run is a task):

- lifecycle: \`agent_start\`, \`turn_start\` (\`turn\`), \`tool_execution_start\` (\`callId, name,
  args\`), \`tool_execution_end\` (\`callId, result, isError\`), \`message\` (\`role, text\`),
  \`retry\` (a rate limit or server error being retried), \`agent_end\` (\`status, error?\`);
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
{"type":"agent_start","message":"List the files","model":"openai/gpt-5:online","provider":"openrouter"}
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
(as a task) and, under \`tsclaw serve\`, \`CLAW_URL\` (and \`CLAW_TOKEN\`), so it can call this
service about its own work.
`;

const RUN = `## Run contract

\`run_task\` starts an agent run of a prompt as a task and returns at once with
\`{taskId, jobId (= taskId), sessionKey, sessionId, status, version, replayed, continuePolling,
nextAction}\`, where \`nextAction\` is the exact next call: \`{"op": "check_task", "args":
{"taskId": …}}\`. Then poll with \`check_task\`; the server does the waiting.

- A task runs in its session (\`sessionKey\`; a new one when omitted). Tasks of one session run one
  at a time, in order; later ones wait as \`todo\` with phase \`queued\`.
- \`check_task\` waits up to \`waitMs\` (default 45 000, clamped to 0–600 000) for a terminal or
  actionable status; ordinary progress does not end the wait early (\`until: "update"\` also
  returns on any new version). It returns \`{task, isTerminal, isActionable, continuePolling,
  nextAction, waitedMs, pollNumber}\`.
- A wait that ends without news is not a failure: \`continuePolling\` is true and \`nextAction\` is
  the same \`check_task\`; call it again. A poll never creates a second task.
- \`continuePolling\` is true exactly while the status is \`todo\` or \`in_progress\`. Terminal
  statuses: \`completed\`, \`completed_no_summary\`, \`error\`, \`cancelled\`, \`done\` — then
  \`nextAction\` is \`null\`. Actionable: \`blocked\`, \`needs_human\` — \`nextAction\` names the call
  that resumes the work.
- The summary is the run's last assistant text (none → \`completed_no_summary\`). A failed run has
  \`error: {code, message, category, suggestedRecovery}\`. After a server restart, a task that
  was running becomes \`error\` with code \`interrupted\`.
- \`get_task\` returns the task immediately, never waits. \`idempotencyKey\` makes \`run_task\`
  safe to resend: same key and arguments → the same task with \`replayed: true\`; same key, other
  arguments → \`idempotency_conflict\`.

Worked example — a polling loop:

\`\`\`sh
${DO} '{"op":"run_task","args":{"prompt":"Count the TODO lines in src","sessionKey":"todo","idempotencyKey":"todo-1"}}'
# {"ok":true,"result":{"taskId":"task_dc77…","jobId":"task_dc77…","sessionKey":"todo","sessionId":"ses_da54…",
#   "status":"todo","version":1,"replayed":false,"continuePolling":true,
#   "nextAction":{"op":"check_task","args":{"taskId":"task_dc77…"}}}}
${DO} '{"op":"check_task","args":{"taskId":"task_dc77…"}}'
# while running, after up to 45 s:
# {"ok":true,"result":{"task":{…,"status":"in_progress","phase":"running_tool",…},"isTerminal":false,
#   "isActionable":false,"continuePolling":true,"nextAction":{"op":"check_task","args":{"taskId":"task_dc77…"}},
#   "waitedMs":45000,"pollNumber":1}}
# … call again until continuePolling is false:
# {"ok":true,"result":{"task":{…,"status":"completed","phase":"ended","summary":"There are 12 TODO lines.",…},
#   "isTerminal":true,"isActionable":false,"continuePolling":false,"nextAction":null,"waitedMs":3120,"pollNumber":2}}
\`\`\`

\`\`\`sh
# As a shell loop (needs jq):
next=$(${DO} '{"op":"run_task","args":{"prompt":"Count the TODO lines in src"}}' | jq -c '.result.nextAction')
while [ "$next" != "null" ]; do
  r=$(${DO} "$(jq -c '{op: .op, args: .args}' <<<"$next")")
  next=$(jq -c 'if .result.continuePolling then .result.nextAction else null end' <<<"$r")
done
jq '.result.task | {status, summary}' <<<"$r"
\`\`\`
`;

const COMPLETION = `## Completion contract

Work tracked here but done elsewhere (by you, another agent, a person) is a task made with
\`task_create\` (status \`todo\`, version 1, not executed). It changes only through \`task_update
{taskId, expectedVersion, status?, title?, body?, handoff?, receipt?, writeContext?}\`:

- Every update needs \`expectedVersion\`, the version you last read. A stale one is
  \`version_conflict\` with \`details.currentVersion\`, and nothing changes: read the task again
  and decide again. Each accepted change adds one to \`version\`.
- Moving into \`done\` from any other status needs, all in the same call: non-empty
  \`handoff.completed\` and \`handoff.next\` (else \`completion_handoff_required\`); one \`receipt
  {sessionRef, worker, work, next, blockers, tests, gitCheckpoint?}\` (else
  \`completion_receipt_required\`); and \`writeContext {instance, project}\` equal to
  \`server_identity\`'s \`instance\` and the task's \`project\` (else \`write_context_mismatch\`). The
  update and the receipt are stored in one transaction; a refused completion leaves no change
  and no receipt.
- \`(taskId, sessionRef)\` is unique: sending the same receipt again returns the current task with
  \`replayed: true\`; a different receipt under the same \`sessionRef\` is \`receipt_conflict\`.
- \`blocked\` needs a non-empty \`handoff.blockers\` (\`blocker_required\`). An agent may set its own
  task (\`$CLAW_TASK_ID\`) to \`blocked\` or \`needs_human\`; the end of its run does not overwrite
  that. Title or body edits of a \`done\` task need no receipt; reopening (\`done\` → \`todo\` or
  \`in_progress\`) is allowed, and completing again follows the contract again.
- \`idempotencyKey\` on \`task_create\` (and \`run_task\`, \`memory_add\`): same key and arguments
  replay the original result; same key, other arguments → \`idempotency_conflict\`.

Worked example:

\`\`\`sh
${DO} '{"op":"server_identity"}'
# {"ok":true,"result":{"instance":"114911c7-…","project":"webapp",…}}
${DO} '{"op":"task_create","args":{"title":"Write the release notes","idempotencyKey":"notes-1"}}'
# {"ok":true,"result":{"taskId":"task_5010…","kind":"work","status":"todo","version":1,"project":"webapp",…}}
${DO} '{"op":"task_update","args":{"taskId":"task_5010…","expectedVersion":1,"status":"done",
  "writeContext":{"instance":"114911c7-…","project":"webapp"}}}'
# {"ok":false,"error":{"code":"completion_handoff_required",…}}   (nothing changed: still version 1)
${DO} '{"op":"task_update","args":{"taskId":"task_5010…","expectedVersion":1,"status":"done",
  "handoff":{"completed":"Release notes written","next":"Review by a maintainer","blockers":""},
  "receipt":{"sessionRef":"worker-42/run-1","worker":"agent worker-42","work":"Wrote docs/RELEASE.md",
             "next":"Review","blockers":"","tests":"npm test: 120 passed","gitCheckpoint":"abc1234"},
  "writeContext":{"instance":"114911c7-…","project":"webapp"}}}'
# {"ok":true,"result":{"taskId":"task_5010…","status":"done","version":2,"replayed":false,…}}
${DO} '{"op":"get_task","args":{"taskId":"task_5010…","include":["receipts"]}}'
# read it back: the durable confirmation
\`\`\`

Sending the last call again returns the task with \`replayed: true\`; sending it with
\`"expectedVersion":1\` and another \`sessionRef\` is \`version_conflict\` (\`currentVersion\`: 2).
`;

/** Sections in display order. */
export const SECTIONS: readonly string[] = [BUS, BASH, SESSIONS, RUN, COMPLETION];
