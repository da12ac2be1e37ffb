/** The hand-written prose of the /doc guide: what the service is and how to call it. Operation reference is generated. */

/** Introduction: what tsclaw is and how to call it. `{NAME}` placeholders are filled from the server's configuration. */
export const INTRO = `# tsclaw — user's guide for agents

tsclaw runs LLM agents whose only tool is bash, with durable tasks, conversational sessions and
an event bus, all in one SQLite file. Every operation below is one JSON request to \`POST /do\`;
the same request works unchanged over WebSocket (\`/ws\`) and as a stdio JSON line, with the same
result. This guide is generated from the server's operation registry, so it lists exactly what
this server can do. Fetch one part only with \`GET /doc?op=<name>\` (one operation) or
\`GET /doc?section=<name>\` (one section: {SECTIONS}); the \`doc\` operation takes the same
\`op\` and \`section\` arguments.

## Calling an operation

\`\`\`sh
curl -s {URL}/do -H "Authorization: Bearer $CLAW_TOKEN" -H 'Content-Type: application/json' \\
  -d '{"op": "out", "args": {"bus": "thebus", "payload": {"hello": 1}}, "id": 1}'
# {"id":1,"ok":true,"result":{"bus":"thebus","seq":1,"ts":1767225600000}}
\`\`\`

- Request: \`{"op": "<name>", "args": {…}, "id": <string|number, optional>}\`. \`args\` may be
  omitted when no argument is required. Unknown argument names are rejected (\`invalid_args\`).
- Success: \`{"id": …, "ok": true, "result": {…}}\`.
- Failure: \`{"id": …, "ok": false, "error": {"code", "message", "retryable", "details"?}}\`.
  Act on \`code\` (table below), never on the message text. \`retryable: true\` means the same
  request may succeed later unchanged. No stack traces are ever sent.
- Over HTTP the status follows the code (200 on success). The body must be
  \`Content-Type: application/json\`, at most {MAX_REQUEST} (this server's limit).
- Field names are camelCase, operation names snake_case, timestamps epoch milliseconds, ids
  strings.
- Every request needs \`Authorization: Bearer <token>\`, from this machine too (\`401
  unauthorized\` without it). \`tsclaw serve\` keeps its token in \`<db>.token\` beside its
  database (mode 0600; for example \`export CLAW_TOKEN=$(cat claw.db.token)\`), unless it was
  given one with \`--token-file\` or \`CLAW_TOKEN\`; its startup output says where it is (a
  401 never does). \`?token=\` works only on GET streams (SSE, the WebSocket upgrade); better, mint a
  single-use ticket with \`stream_ticket\` (valid 60 s) and open the stream with \`?ticket=\`,
  so the long-lived token never sits in a URL. Only \`GET /health\` and the dashboard's static
  files (\`/ui\`) need no token; \`GET /doc\` needs it like \`/do\` (a run's token reads it too).
  Browsers may call only from the same origin.
- On this server: {AUTH_LINE}
- From bash started by tsclaw, \`$CLAW_URL\` points back here and \`$CLAW_TOKEN\` holds a token,
  so a script can call \`curl -s "$CLAW_URL/do" -H "Authorization: Bearer $CLAW_TOKEN" …\`.
  That token is never the server's: it is minted for the one agent run (or \`bash\` call) and
  revoked when it ends (then \`401\`; sockets opened with it close with 4001; a restart revokes
  all). An agent run's token may call \`out\`/\`read\`/\`subscribe\` on the session's bus (only
  \`out\` when that is the shared default \`thebus\`: it holds every such session's events),
  \`get_task\`/\`check_task\`/\`task_update\` on its own task, the session's read operations
  (\`get_state\`, \`get_messages\`, \`get_session_stats\`, \`get_last_assistant_text\`,
  \`export_session\`), and \`ops\`, \`doc\`, \`server_identity\`, \`unsubscribe\`; a \`bash\`
  call's token only the bus operations on the buses its event specs name (\`thebus\` when none).
  Anything else is \`403 forbidden\`, and \`/mcp\` does not take it.
- \`GET /doc?format=json\` (or the \`ops\` operation) returns the JSON Schema of every operation's
  arguments and result. \`GET /health\` answers \`{"ok":true}\` and nothing else (503 with an
  error envelope when the server cannot serve).
`;

/** The transports besides POST /do. */
export const TRANSPORTS = `## The other ways in

- **WebSocket** \`/ws\`: one request envelope per message; responses carry your \`id\` and may
  arrive out of order (requests run concurrently: a long \`bash\` does not delay a quick \`out\`).
  \`subscribe\` pushes event frames \`{"event": "bus", "sub", "bus", "seq", "ts", "payload"}\`. A
  client that reads too slowly is sent \`{"event": "closing", "code": 4008, "subscriptions":
  [{"sub", "bus", "lastSeq"}]}\` and closed with code 4008 (reason \`slow_consumer lastSeq=N\`);
  reconnect and \`subscribe\` with \`after: lastSeq\` to lose nothing. The server pings; a peer that
  stops answering is dropped. Clients send the Authorization header with the upgrade (browsers,
  which cannot, use \`?ticket=\` from \`stream_ticket\`, or \`?token=\`).
- **stdio** (\`tsclaw stdio\`): one JSON request per line on stdin, one response line per request
  on stdout, plus event lines for subscriptions. Requests run concurrently, as on a WebSocket: a
  long \`bash\` or \`check_task\` does not hold up the lines after it, so responses may come out
  of order; match them by \`id\`. Each request still sees the effects of every request sent
  before it (an \`out\` then a \`read\` on the next line finds the event). Lines are split on LF
  only. At end of input the calls in flight finish, then the process exits 0.
  A subscription whose reader falls far behind gets \`{"event": "subscription_closed", "sub",
  "bus", "lastSeq", "reason": "slow_consumer"}\`; subscribe again with \`after: lastSeq\`.
- **Server-Sent Events**: \`GET /bus/<name>/events?after=N\` streams a bus: the events after seq
  \`N\` (\`after=0\`: the whole retained history), then live ones. Without \`after\` only new
  events come. Each event is \`id: <seq>\` plus one \`data:\` line holding \`{bus, seq, ts,
  payload}\`. A \`Last-Event-ID\` header wins over \`?after\` (a reconnecting EventSource sends it
  with the same URL, so it resumes where it stopped). The stream opens with \`retry: {SSE_RETRY_MS}\` (a
  dropped EventSource reconnects after {SSE_RETRY_MS} ms) and a comment naming the starting seq, and sends a
  comment line every {SSE_HEARTBEAT_S} s as a heartbeat (\`?heartbeat=<seconds>\`, 1–300, changes it). Browsers
  cannot set headers on EventSource: pass a ticket from \`stream_ticket\` as \`?ticket=\` (single use, 60 s), or the token as \`?token=<token>\` (GET streams only).
- **MCP**: \`/mcp\` speaks the Model Context Protocol (Streamable HTTP, same token rules; \`tsclaw
  mcp\` over stdio). Every operation above except \`subscribe\` is a tool of the same name whose
  annotations carry the operation's effects; \`run_task\` also runs as an MCP task with the same id.
- **TypeScript**: \`import { createClaw } from "tsclaw"\` gives the same operations as typed methods.
- **CLI**: \`tsclaw do <op> '<json args>'\` calls one operation; \`tsclaw tail <bus>\` follows a bus.
`;
