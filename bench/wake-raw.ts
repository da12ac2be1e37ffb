/**
 * The raw side of the check_task wake-up rows, in a process of its own: a bare node:http long
 * poll, woken once an UPDATE of a status table has committed (SQLite in WAL mode, or `pg`). Its
 * own process so that the bench can alternate blocks of its wake-ups with tsclaw's without either
 * side's work (the claw's checkpoints and timers, say) landing in the other's measurements.
 * Reads {"n":N,"from":F} lines on stdin and answers each with {"lat":[ms...]}: N wake-ups of
 * rows F..F+N-1, one at a time.
 * Usage: node --import tsx bench/wake-raw.ts <sqlite file | postgres url>
 */
import { randomBytes } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import { readJsonLines } from "../adapters/jsonl.js";
import { now } from "./measure.js";
import { postJson } from "./post-json.js";
import { rawPgClient } from "./raw-pg.js";

/** A table of task statuses the raw long poll's waker updates. */
interface RawStatuses {
  insert(id: number): Promise<void>;
  cancel(id: number): Promise<void>;
  close(): Promise<void>;
}

function sqliteStatuses(file: string): RawStatuses {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, status TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO t (id, status) VALUES (?, 'todo')");
  const update = db.prepare("UPDATE t SET status = ? WHERE id = ?");
  return {
    insert: async (id) => void insert.run(id),
    cancel: async (id) => void update.run("cancelled", id),
    close: async () => void db.close(),
  };
}

async function pgStatuses(url: string): Promise<RawStatuses> {
  const client = await rawPgClient(url);
  await client.query("CREATE TABLE IF NOT EXISTS t (id BIGINT PRIMARY KEY, status TEXT NOT NULL)");
  return {
    insert: async (id) => void (await client.query("INSERT INTO t (id, status) VALUES ($1, 'todo')", [id])),
    cancel: async (id) => void (await client.query("UPDATE t SET status = $1 WHERE id = $2", ["cancelled", id])),
    close: () => client.end(),
  };
}

const target = process.argv[2]!;
const db = target.startsWith("postgres") ? await pgStatuses(target) : sqliteStatuses(target);
// The client sends a token, as every peer of a served claw must (this server does not check it).
const token = randomBytes(24).toString("base64url");
const waiting = new Map<number, ServerResponse>();
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => waiting.set((JSON.parse(body) as { args: { id: number } }).args.id, res));
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/do`;

/** Latency (ms) from the UPDATE to the client's response, for rows from..from+n-1. */
async function wakeUps(n: number, from: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = from; i < from + n; i++) {
    await db.insert(i);
    const answered = postJson(url, { op: "wait", args: { id: i } }, token).then(() => now());
    while (!waiting.has(i)) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => setTimeout(r, 2));
    const t0 = now();
    await db.cancel(i);
    const res = waiting.get(i)!;
    waiting.delete(i);
    const text = JSON.stringify({ ok: true, result: { id: i, status: "cancelled" } });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
    out.push((await answered) - t0);
  }
  return out;
}

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
// One block at a time: the next line is read once the block before it has answered.
for await (const item of readJsonLines(process.stdin)) {
  if (!("line" in item) || !item.line.trim()) continue;
  const { n, from } = JSON.parse(item.line) as { n: number; from: number };
  process.stdout.write(`${JSON.stringify({ lat: await wakeUps(n, from) })}\n`);
}
server.close();
server.closeAllConnections();
await db.close();
