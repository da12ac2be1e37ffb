/**
 * The dashboard at scale, in Chromium against a real serve: 1 000 tasks (pages of 100, counts
 * from the server, a change still arrives live) and a bus of 100 000 events, of which the page
 * reads only what it shows (the newest 50, then pages of 200 from a chosen seq).
 */
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { launchChromium, type WatchedPage, watchedPage } from "../helpers/browser.js";
import { tempDir } from "../helpers/claw.js";

const TASKS = 1000;
const EVENTS = 100_000;

// Globals of the page, for the functions that run there (the tests compile without the DOM library).
declare const document: {
  querySelector(s: string): { textContent: string | null } | null;
  querySelectorAll(s: string): { length: number };
};
declare const location: { hash: string };
declare const sessionStorage: { getItem(k: string): string | null };

let serve: ServeProcess;
let browser: Browser;
let uiUrl: string;
const pages: WatchedPage[] = [];

async function doOk(op: string, args: unknown): Promise<any> {
  const r = await serve.op(op, args);
  if (!r.body.ok) throw new Error(`${op}: ${JSON.stringify(r.body.error)}`);
  return r.body.result;
}

beforeAll(async () => {
  serve = await startServe(`${tempDir()}/claw.db`, ["--model-provider", "demo"]);
  uiUrl = /^ {2}ui: +(\S+)$/m.exec(serve.stderr())?.[1] ?? "";
  for (let i = 0; i < TASKS; i += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, TASKS - i) }, (_, k) =>
        doOk("task_create", { title: `work item ${i + k + 1}` }),
      ),
    );
  // One bash call publishes a line event per line: 100 000 events on the bus "big".
  const r = await doOk("bash", {
    script: `seq 1 ${EVENTS}`,
    stdoutLineEvent: { template: { line: "{payload}" }, bus: "big" },
  });
  expect(r.exitCode).toBe(0);
  browser = await launchChromium();
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});
afterEach(async () => {
  for (const p of pages.splice(0)) await p.page.context().close();
});

async function open(hash: string, watch: (w: WatchedPage) => void = () => {}): Promise<WatchedPage> {
  const w = await watchedPage(browser);
  pages.push(w);
  watch(w);
  await w.page.goto(uiUrl);
  await w.page.waitForSelector("header.top");
  await w.page.evaluate((h) => (location.hash = h), hash);
  return w;
}

test("1 000 tasks: exact counts, 100 rows per page, and a change to one of them still arrives live", async () => {
  const w = await open("#/tasks");
  await w.page.waitForSelector("tr[data-task]");
  expect(await w.page.locator("[data-count=all]").innerText()).toBe(String(TASKS));
  expect(await w.page.locator("[data-count=todo]").innerText()).toBe(String(TASKS));
  expect(await w.page.locator("tr[data-task]").count()).toBe(100);
  await w.page.click("text=More tasks");
  await w.page.waitForFunction(() => document.querySelectorAll("tr[data-task]").length === 200);
  const newest = (await doOk("list_tasks", { limit: 1 })).tasks[0];
  await doOk("task_update", { taskId: newest.taskId, expectedVersion: newest.version, status: "in_progress" });
  await w.page.waitForSelector(`tr[data-task="${newest.taskId}"][data-status=in_progress]`);
  await w.page.waitForFunction(() => document.querySelector("[data-count=in_progress]")?.textContent === "1");
  expect(await w.page.locator("[data-count=todo]").innerText()).toBe(String(TASKS - 1));
  expect(w.errors).toEqual([]);
  expect(await w.cspViolations()).toEqual([]);
});

test("a bus of 100 000 events: the page reads the newest 50, then pages of 200 from a chosen seq", async () => {
  const reads: { after: number; limit: number }[] = [];
  const subscribes: number[] = [];
  const w = await open("#/bus/big", ({ page }) => {
    page.on("request", (r) => {
      const body = r.method() === "POST" ? JSON.parse(r.postData() ?? "{}") : {};
      if (body.op === "read" && body.args.bus === "big") reads.push(body.args);
    });
    page.on("websocket", (ws) =>
      ws.on("framesent", (f) => {
        const m = JSON.parse(String(f.payload));
        if (m.op === "subscribe" && m.args?.bus === "big") subscribes.push(m.args.after);
      }),
    );
  });
  await w.page.waitForSelector("[data-field=mode].m-live");
  expect(await w.page.locator("ol.events li").count()).toBe(50);
  expect(await w.page.locator("ol.events li").first().getAttribute("data-seq")).toBe(String(EVENTS - 49));
  expect(await w.page.locator("ol.events li").last().getAttribute("data-seq")).toBe(String(EVENTS));
  await doOk("out", { bus: "big", payload: { line: "one more" } });
  await w.page.waitForSelector(`li[data-seq='${EVENTS + 1}']`);

  await w.page.fill("input[name=from]", "50000");
  await w.page.click("form.inline button[type=submit]");
  await w.page.waitForSelector("[data-field=mode].m-behind");
  await w.page.waitForSelector("li[data-seq='50001']");
  expect(await w.page.locator("ol.events li").count()).toBe(200);
  await w.page.click("text=Next 200");
  await w.page.waitForSelector("li[data-seq='50400']");
  expect(await w.page.locator("ol.events li").count()).toBe(400);
  expect(reads.length).toBeGreaterThanOrEqual(3);
  expect(reads.every((a) => a.limit <= 200)).toBe(true);
  expect(subscribes.length).toBeGreaterThan(0);
  expect(subscribes.every((after) => after >= EVENTS - 50)).toBe(true); // live only from the newest
  expect(w.errors).toEqual([]);
  expect(await w.cspViolations()).toEqual([]);
});
