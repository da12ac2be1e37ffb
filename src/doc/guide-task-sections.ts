/**
 * The task sections of the /doc guide: the run contract and the completion contract, each with
 * a worked example. `{URL}` is replaced by the server's URL.
 */

const DO = `curl -s {URL}/do -H "Authorization: Bearer $CLAW_TOKEN" -H 'Content-Type: application/json' -d`;

/** The run contract: run_task, then check_task until continuePolling is false. */
export const RUN = `## Run contract

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
  was running becomes \`error\` with code \`interrupted\`; with several nodes on PostgreSQL, a task
  whose node died becomes \`error\` with code \`node_lost\` once that node's lease lapses. Neither
  is re-run on its own.
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

/** The completion contract: task_update into done with handoff, receipt and writeContext. */
export const COMPLETION = `## Completion contract

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
- A refused completion names every unmet requirement at once in \`details.missing\`, in this
  order: \`handoff.completed\`, \`handoff.next\`, \`receipt\` (or \`receipt.<field>\` for a blank
  field), \`writeContext\` (or \`writeContext.instance\` / \`writeContext.project\` for the field
  that differs), so one corrected retry suffices; the code is the first unmet one's.
  \`write_context_mismatch\` never tells the expected values: read them from \`server_identity\`
  and the task on the server you mean to write to.
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
