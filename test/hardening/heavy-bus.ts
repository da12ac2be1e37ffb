/**
 * Shared parts of the large-event tests: filling a database file with ~1 MiB events from the test
 * process (so the server under test never holds them in memory), reading a child's peak RSS,
 * and reading a whole bus over SSE, WebSocket and HTTP with bounded memory on the client side.
 */
import { readFileSync } from "node:fs";
import WebSocket from "ws";
import { createClaw } from "../../src/index.js";

/** A string payload whose JSON text is exactly `bytes` long. */
export function bigPayload(i: number, bytes = 1024 * 1024): string {
  const head = `event ${i} `;
  return head + "x".repeat(bytes - 2 - head.length);
}

/** Writes `count` events of ~1 MiB each to `bus` of the database at `db`, then closes it. */
export async function fillHeavy(db: string, bus: string, count: number): Promise<void> {
  const claw = createClaw({ db, project: "heavy", env: {} });
  try {
    for (let i = 1; i <= count; i += 10) {
      const batch = Array.from({ length: Math.min(10, count - i + 1) }, (_, k) =>
        claw.bus.out({ bus, payload: bigPayload(i + k) }),
      );
      await Promise.all(batch);
    }
  } finally {
    await claw.close();
  }
}

/** A process's peak resident set (VmHWM), in bytes. */
export function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmHWM for ${pid}`);
  return Number(m[1]) * 1024;
}

/** What a reader saw: seqs in order and whether each payload was the expected one. */
export interface Seen {
  seqs: number[];
  intact: boolean;
}

function check(seen: Seen, seq: number, payload: unknown): void {
  seen.seqs.push(seq);
  if (typeof payload !== "string" || !payload.startsWith(`event ${seq} `) || payload.length !== 1024 * 1024 - 2)
    seen.intact = false;
}

/** Reads `bus` as SSE from after=0 until seq `last`, parsing one event at a time. */
export async function readSse(
  url: string,
  bus: string,
  last: number,
  headers: Record<string, string> = {},
): Promise<Seen> {
  const seen: Seen = { seqs: [], intact: true };
  const ac = new AbortController();
  const res = await fetch(`${url}/bus/${bus}/events?after=0`, { signal: ac.signal, headers });
  if (res.status !== 200) throw new Error(`SSE answered ${res.status}: ${await res.text()}`);
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").find((l) => l.startsWith("data: "));
        if (!data) continue;
        const e = JSON.parse(data.slice(6));
        check(seen, e.seq, e.payload);
        if (e.seq >= last) return seen;
      }
    }
  } finally {
    ac.abort();
  }
  return seen;
}

/** Opens a WebSocket to `url` (http://…) and returns a request function matching ids. */
export async function openWs(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`, { maxPayload: 64 * 1024 * 1024, headers });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const waiting = new Map<number, (r: any) => void>();
  const events: ((f: any) => void)[] = [];
  let id = 0;
  ws.on("message", (d) => {
    const f = JSON.parse(d.toString());
    if (f.event === "bus") for (const e of events) e(f);
    else if (waiting.has(f.id)) {
      waiting.get(f.id)!(f);
      waiting.delete(f.id);
    }
  });
  const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
  return {
    ws,
    closed,
    request(op: string, args: unknown): Promise<any> {
      const n = ++id;
      return new Promise((resolve) => {
        waiting.set(n, resolve);
        ws.send(JSON.stringify({ op, args, id: n }));
      });
    },
    onEvent(fn: (f: any) => void) {
      events.push(fn);
    },
  };
}

/** Reads the whole bus with `read` pages (limit 1000) through `request`, checking every page. */
export async function readPages(request: (op: string, args: unknown) => Promise<any>, bus: string): Promise<Seen> {
  const seen: Seen = { seqs: [], intact: true };
  let after = 0;
  for (;;) {
    const r = await request("read", { bus, after, limit: 1000 });
    if (!r.ok) throw new Error(`read failed: ${JSON.stringify(r).slice(0, 300)}`);
    if (r.result.events.length === 0) return seen;
    for (const e of r.result.events) check(seen, e.seq, e.payload);
    after = r.result.next;
  }
}
