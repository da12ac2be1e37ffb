/** Contract sections of the /doc guide (bus, bash templates, sessions, tasks, completion), with worked examples. */

const BUS = `## The bus

An event is \`{bus, seq, ts, payload}\`. \`seq\` is per bus, starts at 1 and is contiguous unless the bus
was trimmed, so a gap tells you events were removed. \`out\` returns after the event is committed.
Read with a cursor: pass the returned \`next\` as \`after\`. \`waitMs\` turns \`read\` into a long poll.

\`\`\`sh
curl -s {URL}/do -H 'Content-Type: application/json' -d '{"op":"read","args":{"bus":"thebus","after":0,"waitMs":30000}}'
\`\`\`
`;

/** Sections in display order. */
export const SECTIONS: readonly string[] = [BUS];
