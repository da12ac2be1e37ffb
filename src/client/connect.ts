/**
 * connectClaw: the same handles as createClaw, over a running server. Calls go over `POST /do`,
 * subscriptions over one WebSocket that reconnects and resumes by itself. The handle methods are
 * derived from the server's own catalog, so every operation it serves has its method.
 */

import { abortable } from "../core/abortable.js";
import { ClawError } from "../core/errors.js";
import { linkSignals } from "../core/link-signals.js";
import type { Response } from "../core/wire.js";
import { assembleHandles, type ClawApi } from "../handles/claw-api.js";
import { deriveHandles } from "../handles/derive.js";
import type { Caller } from "../handles/handle-types.js";
import type { CatalogEntry } from "../ops/catalog.js";
import { type FetchLike, httpCall, postEnvelope, unreachable } from "./http-call.js";
import { remoteStream } from "./remote-subscribe.js";
import { SocketChannel, type WebSocketCtor } from "./socket-channel.js";

/** Options of {@link connectClaw}. */
export interface ConnectOptions {
  /** The server, e.g. "http://127.0.0.1:8000". */
  url: string;
  /** Bearer token. Default: CLAW_TOKEN where there is an environment */
  token?: string;
  /** fetch to use. Default: the global fetch */
  fetch?: FetchLike;
  /** WebSocket constructor to use (e.g. the `ws` package on Node 20). Default: the global WebSocket */
  WebSocket?: new (
    url: string,
  ) => object;
  /** Aborting it closes the client: calls in flight end, on the server too, and subscriptions end. */
  signal?: AbortSignal;
}

/** A claw on a remote server: the same handles as a local one; what is synchronous locally returns a Promise here. */
export interface RemoteClaw extends ClawApi<() => Promise<void>> {
  /** The server's JSON Schema catalog. */
  ops(): Promise<CatalogEntry[]>;
  /** The server's Markdown guide. */
  doc(): Promise<string>;
}

/**
 * Calls sent at once; later ones queue in order. Thousands of simultaneous connections overflow
 * a server's accept queue (and a browser allows only a few per origin anyway).
 */
const MAX_CONCURRENT_CALLS = 64;

/** A FIFO limit on concurrent tasks. */
class Slots {
  private busy = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.busy >= this.max) await new Promise<void>((r) => this.queue.push(r));
    else this.busy++;
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.busy--;
    }
  }
}

function envToken(): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.CLAW_TOKEN || undefined;
}

/**
 * One controller per call, aborted by the call's own signal or by the client's close. The client
 * keeps its calls in a set instead of listening on one shared signal, whose listeners would pile
 * up with many calls in flight (and AbortSignal.any leaks on Node 20).
 */
function linked(own: AbortSignal | undefined, calls: Set<AbortController>): { signal: AbortSignal; release(): void } {
  const link = linkSignals(own);
  calls.add(link.controller);
  return {
    signal: link.signal,
    release: () => {
      link.release();
      calls.delete(link.controller);
    },
  };
}

/** Connects to a tsclaw server; rejects with a ClawError when it cannot be reached or refuses the token. */
export async function connectClaw(options: ConnectOptions): Promise<RemoteClaw> {
  const base = options.url.replace(/\/+$/, "");
  const token = options.token ?? envToken();
  const fetchImpl = options.fetch ?? (globalThis.fetch?.bind(globalThis) as FetchLike | undefined);
  if (!fetchImpl) throw new ClawError("invalid_args", "no fetch on this platform; pass options.fetch");
  const calls = new Set<AbortController>();
  let closed = false;
  // Subscriptions still being set up: a call waits for them, so it is ordered after them as locally.
  const starting = new Set<Promise<void>>();
  const started = (attempt: Promise<void>) => {
    starting.add(attempt);
    void attempt.then(() => starting.delete(attempt));
  };
  const inFlight = new Set<Promise<unknown>>();
  const slots = new Slots(MAX_CONCURRENT_CALLS);
  const untypedCall = async (name: string, args: unknown, ctx?: { signal?: AbortSignal }) => {
    if (starting.size > 0) await Promise.all(starting);
    if (closed) throw new ClawError("cancelled", "the client is closed");
    // The caller's signal rejects the call at once with its reason (as fetch does); the link
    // still tells the server (cancel_call), so the work ends there too, and close() waits for it.
    return abortable(ctx?.signal, () => {
      const link = linked(ctx?.signal, calls);
      const call = slots.run(() => httpCall(fetchImpl, base, token, name, args, link.signal));
      inFlight.add(call);
      return call
        .then((result) => {
          // Ended by close(): what the server answered (a wait's snapshot) is not what was asked.
          if (closed && link.signal.aborted) throw new ClawError("cancelled", "the client was closed during this call");
          return result;
        })
        .finally(() => {
          inFlight.delete(call);
          link.release();
        });
    });
  };
  const call = untypedCall as Caller;
  const { ops } = (await untypedCall("ops", {}, { signal: options.signal })) as { ops: CatalogEntry[] };

  const wsUrl = `${base.replace(/^http/, "ws")}/ws${token ? `?token=${encodeURIComponent(token)}` : ""}`;
  const WebSocketImpl = (options.WebSocket ?? (globalThis as { WebSocket?: unknown }).WebSocket) as
    | WebSocketCtor
    | undefined;
  const channel = new SocketChannel(wsUrl, WebSocketImpl);
  const close = async () => {
    closed = true;
    channel.close();
    for (const c of calls) c.abort(); // calls in flight end on the server; their callers get `cancelled`
    await Promise.allSettled([...inFlight]);
  };
  if (options.signal?.aborted) void close();
  options.signal?.addEventListener("abort", () => void close(), { once: true });

  return {
    ...assembleHandles(deriveHandles(ops, untypedCall, (name) => remoteStream(channel, started, name))),
    call,
    do: async (request: unknown, ctx?: { signal?: AbortSignal }): Promise<Response> => {
      const link = linked(ctx?.signal, calls);
      try {
        return await postEnvelope(fetchImpl, base, token, request, link.signal);
      } catch (err) {
        const id = (request as { id?: string | number } | null)?.id ?? null;
        return { id, ok: false, error: unreachable(err, link.signal).toWire() };
      } finally {
        link.release();
      }
    },
    ops: async () => ((await untypedCall("ops", {})) as { ops: CatalogEntry[] }).ops,
    doc: async () => ((await untypedCall("doc", {})) as { markdown: string }).markdown,
    close,
  };
}
