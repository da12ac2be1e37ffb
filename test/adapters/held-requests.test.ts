/**
 * `serve` binds its port before it opens the database. Requests that arrive in between are held
 * and answered once the claw is attached (before, Node dropped them and their clients waited for
 * ever); past the limits, and when the server closes without attaching, they get `starting`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, test, vi } from "vitest";
import { HeldRequests } from "../../adapters/held-requests.js";
import { bindHttp } from "../../adapters/http.js";
import { createAccessPolicy } from "../../adapters/security.js";
import { memClaw } from "../helpers/claw.js";
import { WAIT } from "../helpers/wait.js";

const TOKEN = "held-requests-token-0123456789abcdef";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const post = (url: string, op: string, args: unknown) =>
  fetch(`${url}/do`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ op, args }),
  });

test("requests sent before the claw is attached wait, then are answered by it", async () => {
  const bound = await bindHttp({ host: "127.0.0.1", port: 0 });
  const early = [1, 2, 3].map((i) => post(bound.url, "out", { payload: { i } }));
  await vi.waitFor(() => expect(bound.waiting()).toBe(3), WAIT);
  const claw = memClaw();
  const http = bound.attach(claw, { policy: createAccessPolicy({ token: TOKEN }) });
  cleanups.push(async () => {
    await http.close();
    await claw.close();
  });
  const answers = await Promise.all(early);
  expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
  const seqs = await Promise.all(answers.map(async (r) => ((await r.json()) as any).result.seq));
  expect(seqs.sort()).toEqual([1, 2, 3]);
  expect(bound.waiting()).toBe(0);
  // Later requests go straight to the handler.
  expect((await post(bound.url, "out", { payload: 4 })).status).toBe(200);
});

test("a bound server that closes without attaching answers its held requests `starting` (503, Retry-After)", async () => {
  const bound = await bindHttp({ host: "127.0.0.1", port: 0 });
  const early = post(bound.url, "out", { payload: 1 });
  await vi.waitFor(() => expect(bound.waiting()).toBe(1), WAIT);
  await bound.close();
  const res = await early;
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("1");
  expect(((await res.json()) as any).error).toMatchObject({ code: "starting", retryable: true });
});

async function plainServer(limits: { maxHeld: number; holdMs: number }) {
  const server: Server = createServer();
  const held = new HeldRequests(server, limits);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        held.refuseAll();
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { held, url };
}

test("past the most held, a request is answered `starting` at once; a held one is answered `starting` after the hold", async () => {
  const { held, url } = await plainServer({ maxHeld: 1, holdMs: 300 });
  const first = post(url, "out", { payload: 1 });
  await vi.waitFor(() => expect(held.size).toBe(1), WAIT);
  const second = await post(url, "out", { payload: 2 });
  expect(second.status).toBe(503);
  expect(((await second.json()) as any).error.code).toBe("starting");
  expect(held.size).toBe(1);
  const res = await first; // nobody released it: the hold ends
  expect(res.status).toBe(503);
  expect(((await res.json()) as any).error.code).toBe("starting");
  expect(held.size).toBe(0);
});

test("a client that gives up while held is forgotten; release answers the rest in arrival order", async () => {
  const { held, url } = await plainServer({ maxHeld: 10, holdMs: 60_000 });
  const gone = new AbortController();
  const a = fetch(`${url}/a`, { signal: gone.signal }).catch((err: Error) => err.name);
  await vi.waitFor(() => expect(held.size).toBe(1), WAIT);
  const b = fetch(`${url}/b`);
  await vi.waitFor(() => expect(held.size).toBe(2), WAIT);
  const c = fetch(`${url}/c`);
  await vi.waitFor(() => expect(held.size).toBe(3), WAIT);
  gone.abort();
  expect(await a).toBe("AbortError");
  await vi.waitFor(() => expect(held.size).toBe(2), WAIT);
  const order: string[] = [];
  held.release((req, res) => {
    order.push(req.url ?? "");
    res.end("ok");
  });
  expect((await b).status).toBe(200);
  expect((await c).status).toBe(200);
  expect(order).toEqual(["/b", "/c"]);
});
