/**
 * The model clients' transport (model-fetch.ts) and the events read from it (response-events.ts),
 * against a real node:http server: the events are exactly what the OpenAI client's own stream
 * yields for the same bytes however they are cut, an error answer (compressed or not) is the
 * client's APIError with its status and headers, connections are reused and closed with the
 * claw, and an abort ends a stream at once.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import OpenAI, { APIError } from "openai";
import { Stream } from "openai/streaming";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { ModelFetch } from "../../src/agent/model-fetch.js";
import { responseEvents } from "../../src/agent/response-events.js";

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface TestServer {
  url: string;
  /** Each request with the connection it came over (`closed` once the server saw it close). */
  requests: { headers: IncomingMessage["headers"]; body: string; socket: Socket & { closed?: boolean } }[];
  close: () => Promise<void>;
}

const servers: TestServer[] = [];
const transports: ModelFetch[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler): Promise<TestServer> {
  const requests: TestServer["requests"] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body, socket: req.socket });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const s: TestServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(s);
  return s;
}

function clientOf(server: TestServer): { client: OpenAI; transport: ModelFetch } {
  const transport = new ModelFetch();
  transports.push(transport);
  return {
    transport,
    client: new OpenAI({ baseURL: server.url, apiKey: "sk-test", maxRetries: 0, fetch: transport.fetch }),
  };
}

const request = { model: "m", input: "hi", stream: true as const };

async function eventsOf(client: OpenAI, signal = new AbortController().signal): Promise<unknown[]> {
  const response = await client.responses.create(request, { signal }).asResponse();
  const out: unknown[] = [];
  for await (const event of responseEvents(response, signal)) out.push(event);
  return out;
}

/** What the OpenAI client's own stream yields for `bytes`. */
async function sdkEvents(bytes: Buffer): Promise<unknown[]> {
  const stream = Stream.fromSSEResponse(new Response(bytes), new AbortController());
  const out: unknown[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

const EVENTS = [
  { type: "response.created", response: { id: "resp_1", status: "in_progress", output: [] } },
  { type: "response.output_text.delta", output_index: 0, delta: "ünïcödé 🎉 and \u2028 a line" },
  { type: "response.output_text.delta", output_index: 0, delta: "data: not a field\n\nstill text" },
  { type: "response.completed", response: { id: "resp_1", status: "completed", output: [], usage: null } },
];

/** An SSE text with what the format allows: comments, CRLF, a data field over two lines, [DONE]. */
function sseText(crlf: boolean): string {
  const nl = crlf ? "\r\n" : "\n";
  const blocks = EVENTS.map((e, i) => {
    const json = JSON.stringify(e);
    if (i !== 1) return `event: ${e.type}${nl}data: ${json}${nl}`;
    // One event's JSON split over two data lines: the parser joins them with a newline.
    const cut = json.indexOf(",") + 1;
    return `: a comment${nl}event: ${e.type}${nl}data: ${json.slice(0, cut)}${nl}data:${json.slice(cut)}${nl}`;
  });
  return `${blocks.join(nl)}${nl}data: [DONE]${nl}${nl}event: response.created${nl}data: {"after":"done"}${nl}${nl}`;
}

/** Writes `bytes` in pieces cut at the given offsets, a turn of the loop apart. */
function writeInPieces(res: ServerResponse, bytes: Buffer, cuts: number[]): void {
  const ends = [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length];
  let start = 0;
  const next = () => {
    const end = ends.shift();
    if (end === undefined) return void res.end();
    res.write(bytes.subarray(start, end));
    start = end;
    setImmediate(next);
  };
  next();
}

describe("the model transport", () => {
  it("yields exactly the OpenAI client's events for the same bytes, however they are cut", async () => {
    let bytes = Buffer.alloc(0);
    let cuts: number[] = [];
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      writeInPieces(res, bytes, cuts);
    });
    const { client } = clientOf(server);
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const crlf of [false, true]) {
      bytes = Buffer.from(sseText(crlf));
      const expected = await sdkEvents(bytes);
      expect(expected).toEqual(EVENTS);
      // Every single cut (inside multi-byte characters, between CR and LF), then random sets of cuts.
      const cutSets = [
        ...Array.from({ length: bytes.length }, (_, i) => [i]),
        ...Array.from({ length: 30 }, () =>
          Array.from({ length: 1 + Math.floor(random() * 20) }, () => Math.floor(random() * bytes.length)),
        ),
      ];
      for (const set of cutSets) {
        cuts = set;
        expect(await eventsOf(client)).toEqual(expected);
      }
    }
  }, 60_000);

  it("reuses one connection for consecutive calls and closes it with the transport", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sseText(false));
    });
    const { client, transport } = clientOf(server);
    for (let i = 0; i < 5; i++) {
      expect(await eventsOf(client)).toEqual(EVENTS);
      // The connection goes back to the pool in the turn of the loop after the body's end.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const socket = server.requests[0]!.socket;
    expect(server.requests.every((r) => r.socket === socket)).toBe(true);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(JSON.parse(server.requests[0]!.body)).toEqual(request);
    await transport.close();
    await expect.poll(() => socket.closed).toBe(true);
  });

  it("reads a compressed stream and a compressed error answer, and prints no warning to the host", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    onTestFinished(() => void process.off("warning", onWarning));
    let status = 200;
    const server = await serve((_req, res) => {
      if (status === 200) {
        res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
        return void res.end(gzipSync(sseText(false)));
      }
      const body = gzipSync(
        JSON.stringify({ error: { message: "slow down", type: "rate_limit", code: "rate_limit_exceeded" } }),
      );
      res.writeHead(status, { "content-type": "application/json", "content-encoding": "gzip", "retry-after": "3" });
      res.end(body);
    });
    const { client } = clientOf(server);
    expect(await eventsOf(client)).toEqual(EVENTS);
    status = 429;
    const err = await eventsOf(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({
      status: 429,
      code: "rate_limit_exceeded",
      message: expect.stringContaining("slow down"),
    });
    expect((err as APIError).headers?.get("retry-after")).toBe("3");
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    expect(warnings).toEqual([]);
  });

  it("follows a redirect as fetch does, without the key when the origin changes", async () => {
    const target = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sseText(false));
    });
    const origin = await serve((req, res) => {
      const to = req.url?.startsWith("/v1/moved") ? `${target.url}/responses` : "/v1/moved/responses";
      res.writeHead(307, { location: to });
      res.end();
    });
    const { client } = clientOf(origin);
    expect(await eventsOf(client)).toEqual(EVENTS);
    expect(origin.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-test", "Bearer sk-test"]);
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0]!.headers.authorization).toBeUndefined();
    expect(JSON.parse(target.requests[0]!.body)).toEqual(request);
  });

  it("goes through HTTP_PROXY when NODE_USE_ENV_PROXY=1 says Node's fetch would", async () => {
    const target = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sseText(false));
    });
    const proxied: string[] = [];
    const proxy = createServer((req, res) => {
      // An absolute-form request (a proxy that is not tunnelled): forward it.
      proxied.push(`${req.method} ${req.url}`);
      req.pipe(
        httpRequest(req.url!, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        }),
      );
    });
    proxy.on("connect", (req, client: Socket, head) => {
      proxied.push(`CONNECT ${req.url}`);
      const [host, port] = req.url!.split(":");
      const upstream = connect(Number(port), host!, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => {
      proxy.closeAllConnections();
      proxy.close();
    });
    const saved = { use: process.env.NODE_USE_ENV_PROXY, http: process.env.HTTP_PROXY, no: process.env.NO_PROXY };
    onTestFinished(() => {
      for (const [name, value] of [
        ["NODE_USE_ENV_PROXY", saved.use],
        ["HTTP_PROXY", saved.http],
        ["NO_PROXY", saved.no],
      ])
        if (value === undefined) delete process.env[name!];
        else process.env[name!] = value;
    });
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    delete process.env.NO_PROXY;
    const direct = clientOf(target).client; // without NODE_USE_ENV_PROXY: straight to the server
    expect(await eventsOf(direct)).toEqual(EVENTS);
    expect(proxied).toEqual([]);
    process.env.NODE_USE_ENV_PROXY = "1";
    expect(await eventsOf(clientOf(target).client)).toEqual(EVENTS);
    const host = new URL(target.url).host;
    expect(proxied).toHaveLength(1);
    expect(proxied[0]).toMatch(new RegExp(`^(CONNECT ${host}|POST http://${host}/v1/responses)$`));
  });

  it("throws an event carrying an error object as the client's APIError, and stops there", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(EVENTS[0])}\n\n`);
      res.end(`event: error\ndata: ${JSON.stringify({ error: { message: "quota", code: "insufficient_quota" } })}\n\n`);
    });
    const { client } = clientOf(server);
    const seen: unknown[] = [];
    const response = await client.responses.create(request).asResponse();
    const err = await (async () => {
      for await (const event of responseEvents(response, new AbortController().signal)) seen.push(event);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([EVENTS[0]]);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status: undefined, code: "insufficient_quota" });
  });

  it("ends a stalled stream quietly when its signal aborts, and a cut one with an error", async () => {
    let cutIt = false;
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      // Cut: the connection dropped once the first event is on its way.
      res.write(`data: ${JSON.stringify(EVENTS[0])}\n\n`, () => cutIt && res.socket?.destroy());
    });
    const { client } = clientOf(server);
    const abort = new AbortController();
    const response = await client.responses.create(request, { signal: abort.signal }).asResponse();
    const seen: unknown[] = [];
    for await (const event of responseEvents(response, abort.signal)) {
      seen.push(event);
      abort.abort(); // the stream stalls after its first event: abort it there
    }
    expect(seen).toEqual([EVENTS[0]]);
    await expect.poll(() => server.requests[0]!.socket.closed).toBe(true);

    cutIt = true;
    await expect(eventsOf(client)).rejects.toThrow();
  });
});
