/**
 * tsclaw/client in a real browser: Debian's Chromium (driven by playwright-core, no browser
 * download) loads a page from another origin, imports the client from the built package
 * (dist/client.js) and publishes, reads and subscribes; a page from an origin that is not
 * allowed gets 403 and cannot call.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT } from "../adapters/cli-run.js";
import { launchChromium } from "../helpers/browser.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

const CLIENT = `${ROOT}dist/client.js`;

/** A static origin serving one page (its module script from `script()`) and the built client. */
async function pageOrigin(script: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    if (req.url === "/client.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(readFileSync(CLIENT));
    } else if (req.url === "/") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>client</title><script type="module">${script()}</script>`);
    } else {
      res.writeHead(204); // favicon and the like: nothing, without a console error
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const pageScript = (url: string, token: string) => `
import { connectClaw } from "/client.js";
try {
  const claw = await connectClaw({ url: ${JSON.stringify(url)}, token: ${JSON.stringify(token)} });
  const ack = await claw.bus.out({ bus: "web", payload: { from: "page", n: 1 } });
  const read = await claw.bus.read({ bus: "web" });
  const stream = claw.bus.subscribe({ bus: "web", after: 0 });
  await claw.bus.out({ bus: "web", payload: { from: "page", n: 2 } });
  window.__ready = true;
  const got = [];
  for await (const e of stream) {
    got.push(e.payload);
    if (got.length === 3) break; // the third comes from the test, in Node
  }
  await claw.close();
  window.__result = { ack, read: read.events.map((e) => e.payload), got };
} catch (err) {
  window.__result = { error: { code: err.code, message: err.message } };
}`;

let browser: Browser;
let server: TestServer;
const statuses: { method: string; origin: string | undefined; status: number }[] = [];
const origins: Server[] = [];

beforeAll(async () => {
  if (!existsSync(CLIENT)) throw new Error("dist/client.js is missing: run npm run build first");
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  for (const o of origins) o.close();
});

async function serverFor(allowed: string): Promise<TestServer> {
  server = await startServer(memClaw(), { allowedOrigins: [allowed] });
  server.server.prependListener("request", (req, res) =>
    res.on("finish", () => statuses.push({ method: req.method!, origin: req.headers.origin, status: res.statusCode })),
  );
  return server;
}

test("a page from an allowed origin imports the built client, publishes, reads and subscribes", async () => {
  // The page's origin must be known before the server starts; its script after.
  let script = "";
  const site = await pageOrigin(() => script);
  origins.push(site.server);
  await serverFor(site.origin);
  script = pageScript(server.url, server.policy.token);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${site.origin}/`);
  await page.waitForFunction(() => (globalThis as { __ready?: boolean }).__ready === true, undefined, {
    timeout: 15_000,
  });
  await server.claw.bus.out({ bus: "web", payload: { from: "node", n: 3 } });
  await page.waitForFunction(() => (globalThis as { __result?: unknown }).__result !== undefined, undefined, {
    timeout: 15_000,
  });
  const result = await page.evaluate(() => (globalThis as { __result?: any }).__result);
  expect(result.error).toBeUndefined();
  expect(result.ack).toMatchObject({ bus: "web", seq: 1 });
  expect(result.read).toEqual([{ from: "page", n: 1 }]);
  expect(result.got).toEqual([
    { from: "page", n: 1 },
    { from: "page", n: 2 },
    { from: "node", n: 3 },
  ]);
  expect(errors).toEqual([]);
  expect(statuses.some((s) => s.method === "OPTIONS" && s.origin === site.origin && s.status === 204)).toBe(true);
  await page.close();
});

test("a page from an origin that is not allowed gets 403 and cannot call", async () => {
  const foreign = await pageOrigin(() => pageScript(server.url, server.policy.token));
  origins.push(foreign.server);
  const page = await browser.newPage();
  await page.goto(`${foreign.origin}/`);
  await page.waitForFunction(() => (globalThis as { __result?: unknown }).__result !== undefined, undefined, {
    timeout: 15_000,
  });
  const result = await page.evaluate(() => (globalThis as { __result?: any }).__result);
  expect(result.error.code).toBe("connection_failed"); // the browser hides the refused preflight's body
  const refused = statuses.filter((s) => s.origin === foreign.origin);
  expect(refused.length).toBeGreaterThan(0);
  expect(refused.every((s) => s.status === 403)).toBe(true);
  expect((await server.claw.bus.read({ bus: "web" })).events).toHaveLength(3); // nothing more was published
  await page.close();
});
