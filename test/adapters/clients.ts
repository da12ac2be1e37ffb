/** Test clients for the streaming adapters: a WebSocket client and an in-memory stdio pair, both matching responses by id. */
import { PassThrough } from "node:stream";
import { vi } from "vitest";
import WebSocket from "ws";
import { JsonLinesSplitter } from "../../adapters/jsonl.js";
import { runStdio, type StdioOptions } from "../../adapters/stdio.js";
import type { Claw } from "../../src/index.js";

/** A streaming client: send raw frames or requests, await responses by id, collect event frames. */
export interface StreamClient {
  /** Every frame received, parsed, in order. */
  frames: any[];
  /** Sends one raw frame (text). */
  raw(text: string): void;
  /** Sends a request and resolves with its response envelope. */
  request(op: string, args?: unknown): Promise<any>;
  /** Resolves once `pred` holds for the frames received (vi.waitFor on it); rejects after `timeoutMs`. Default: 10 s */
  until(pred: (frames: any[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

let nextId = 1;

function makeClient(send: (text: string) => void, close: () => Promise<void>) {
  const frames: any[] = [];
  const waiting = new Map<string | number, (r: any) => void>();
  const onFrame = (text: string) => {
    const f = JSON.parse(text);
    frames.push(f);
    if (f && f.id !== undefined && f.id !== null && waiting.has(f.id) && "ok" in f) {
      waiting.get(f.id)!(f);
      waiting.delete(f.id);
    }
  };
  const client: StreamClient = {
    frames,
    raw: send,
    request(op, args) {
      const id = `r${nextId++}`;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        send(JSON.stringify(args === undefined ? { op, id } : { op, args, id }));
      });
    },
    until: (pred, timeoutMs = 10_000) =>
      vi.waitFor(
        () => {
          if (!pred(frames)) throw new Error(`not yet, after ${frames.length} frames`);
        },
        { timeout: timeoutMs, interval: 10 },
      ),
    close,
  };
  return { client, onFrame };
}

/** Where a WebSocket client connects: a URL, or a test server (whose token it then sends). */
export type WsTarget = string | { url: string; auth?: Record<string, string> };

/** Opens a WebSocket to `${url}/ws`, with the server's token when given a test server. */
export async function wsClient(
  target: WsTarget,
  headers: Record<string, string> = {},
): Promise<StreamClient & { ws: WebSocket }> {
  const httpUrl = typeof target === "string" ? target : target.url;
  const auth = typeof target === "string" ? {} : (target.auth ?? {});
  const ws = new WebSocket(`${httpUrl.replace(/^http/, "ws")}/ws`, { headers: { ...auth, ...headers } });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const { client, onFrame } = makeClient(
    (text) => ws.send(text),
    () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once("close", () => resolve());
        ws.close();
      }),
  );
  ws.on("message", (data) => onFrame(data.toString()));
  return Object.assign(client, { ws });
}

/** Runs runStdio over in-memory streams. `end()` closes the input; `done` resolves when runStdio does. */
export function stdioClient(
  claw: Claw,
  options: Partial<StdioOptions> = {},
): StreamClient & { input: PassThrough; output: PassThrough; done: Promise<void>; end(): void; lines: string[] } {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: string[] = [];
  const done = runStdio(claw, { input, output, ...options });
  const { client, onFrame } = makeClient(
    (text) => input.write(`${text}\n`),
    async () => {
      input.end();
      await done;
    },
  );
  const splitter = new JsonLinesSplitter({
    line: (l) => {
      lines.push(l);
      onFrame(l);
    },
    oversize: () => {},
  });
  output.on("data", (c: Buffer) => splitter.push(c));
  return Object.assign(client, { input, output, done, lines, end: () => input.end() });
}
