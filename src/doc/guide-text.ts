/** The hand-written prose of the /doc guide: what the service is and its contracts. Operation reference is generated. */

/** Introduction: what tsclaw is and how to call it. `{URL}` is replaced by the server's URL. */
export const INTRO = `# tsclaw — user's guide for agents

tsclaw runs LLM agents whose only tool is bash, with durable tasks, conversational sessions and
an event bus, all in one SQLite file. Every operation below is one JSON request to \`POST /do\`
(also over WebSocket at \`/ws\` and as stdio JSON lines); the result is the same everywhere.

## Calling an operation

\`\`\`sh
curl -s {URL}/do -H 'Content-Type: application/json' \\
  -d '{"op": "out", "args": {"bus": "thebus", "payload": {"hello": 1}}, "id": 1}'
\`\`\`

Request: \`{"op": "<name>", "args": {…}, "id": <string|number, optional>}\` (\`args\` may be omitted
when nothing is required). Response: \`{"id": …, "ok": true, "result": {…}}\` or
\`{"id": …, "ok": false, "error": {"code", "message", "retryable", "details"?}}\`. Over HTTP the status
code follows the error code (table below). Field names are camelCase, timestamps epoch
milliseconds, ids strings. Non-loopback clients send \`Authorization: Bearer <token>\`.
From bash started by tsclaw, \`$CLAW_URL\` (and \`$CLAW_TOKEN\`) point back here.
`;
