/**
 * The `fetch` the model clients are given: undici's `request` on a keep-alive pool of the claw's
 * own, instead of the platform's `fetch`. The OpenAI client still builds every request and turns
 * every error answer into its errors; only the way the bytes travel changes. A streamed turn
 * costs the node about 1 ms less CPU this way (bench/README.md, "Where a run task's CPU goes"):
 * the platform's fetch puts Web Streams and the client's own SSE decoder between the socket and
 * the events, and a run pays that on every turn.
 *
 * A streamed answer (2xx, `text/event-stream`) keeps its body as the Node stream it arrives as,
 * for responses-stream.ts to read (`streamedBody`). Any other answer is read whole into an
 * ordinary `Response`, which the OpenAI client parses as it always has. What this fetch does not
 * handle (a `Request` object, a streamed request body, a scheme other than http(s)) goes to the
 * platform's fetch unchanged.
 */
import { pipeline, type Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Dispatcher } from "undici";
import { headersFrom } from "../core/node-headers.js";

/**
 * undici, loaded with the first model call: it takes ~160 ms to load, which a process that never
 * calls a model (`tsclaw do`, a claw serving only the bus) should not pay at its start.
 */
let undici: Promise<typeof import("undici")> | undefined;
function loadUndici(): Promise<typeof import("undici")> {
  undici ??= import("undici");
  return undici;
}

/** The Node stream of each streamed answer this fetch returned, until the answer is collected. */
const streamedBodies = new WeakMap<Response, Readable>();

/** The body of a streamed answer of `ModelFetch`, as a Node stream; undefined for any other Response. */
export function streamedBody(response: Response): Readable | undefined {
  return streamedBodies.get(response);
}

/** Statuses a `Response` may not carry a body with. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

type FetchInput = string | URL | Request;

/** One keep-alive pool for the model calls of one claw. */
export class ModelFetch {
  // Undici's defaults, as the platform's fetch has them: idle connections closed after 4 s (or
  // the server's keep-alive hint), 300 s for the headers and between two chunks of a body. As
  // fetch does, redirects are followed (credentials dropped when the origin changes), and the
  // proxy variables (HTTP_PROXY, HTTPS_PROXY, NO_PROXY) apply when NODE_USE_ENV_PROXY=1 makes
  // Node's own fetch honour them.
  private pool: { agent: Dispatcher; compose: Dispatcher } | undefined;
  private closed = false;

  /** The pool, made at the first call. */
  private dispatcher(u: typeof import("undici")): Dispatcher {
    if (!this.pool) {
      const agent = process.env.NODE_USE_ENV_PROXY === "1" ? new u.EnvHttpProxyAgent() : new u.Agent();
      this.pool = { agent, compose: agent.compose(u.interceptors.redirect({ maxRedirections: 20 })) };
    }
    return this.pool.compose;
  }

  /** A `fetch` for the OpenAI client's `fetch` option. */
  readonly fetch = async (input: FetchInput, init: RequestInit = {}): Promise<Response> => {
    const body = init.body ?? undefined;
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
    if (
      url === undefined ||
      !/^https?:/i.test(url) ||
      !(body === undefined || typeof body === "string" || body instanceof Uint8Array)
    )
      return globalThis.fetch(input, init);
    const u = await loadUndici();
    if (this.closed) throw new TypeError("fetch failed: the model clients are closed");
    const answer = await u.request(url, {
      method: (init.method ?? "GET") as "GET",
      headers: headerRecord(init.headers),
      body,
      signal: init.signal ?? undefined,
      dispatcher: this.dispatcher(u),
    });
    const headers = headersFrom(answer.headers);
    const stream = decoded(answer.body, headers.get("content-encoding"));
    const status = answer.statusCode;
    if (NO_BODY.has(status)) {
      stream.resume();
      return new Response(null, { status, headers });
    }
    if (status >= 200 && status < 300 && headers.get("content-type")?.includes("text/event-stream")) {
      const response = new Response(null, { status, headers });
      streamedBodies.set(response, stream);
      return response;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return new Response(Buffer.concat(chunks), { status, headers });
  };

  /** Closes the pool's connections; requests still running fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pool) await this.pool.agent.destroy();
  }
}

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const record: Record<string, string> = {};
  // Headers, pairs or a record: whichever form, Headers reads it the way fetch would.
  for (const [name, value] of new Headers(headers)) record[name] = value;
  return record;
}

/**
 * The body without its content coding, as fetch gives it: the client asks for none, but a proxy
 * may compress anyway. (Undici's own decompress interceptor prints an experimental warning to
 * the host's stderr, which a library must not.)
 */
function decoded(body: Readable, coding: string | null): Readable {
  const decoder = DECODERS[coding?.trim().toLowerCase() ?? ""];
  // pipeline: a failure or a destroy at either end reaches the other, and surfaces on read.
  return decoder ? pipeline(body, decoder(), () => {}) : body;
}

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};
