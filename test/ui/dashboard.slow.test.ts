/**
 * The dashboard in Debian's Chromium against a real `tsclaw serve` (port 0, the built-in demo
 * model, a SQLite file): the token flow, tasks live from the `tasks` bus, a ticking long task
 * cancelled from the page, the start form, a session's live messages and prompt box, a bus tail
 * with pause and resume, reload. Every page ends with no console error and no CSP violation.
 */

import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { launchChromium, type WatchedPage, watchedPage } from "../helpers/browser.js";
import { tempDir } from "../helpers/claw.js";

// Globals of the page, for the functions that run there (the tests compile without the DOM library).
declare const document: {
  querySelector(s: string): { textContent: string | null } | null;
  querySelectorAll(s: string): { length: number };
};
declare const location: { hash: string };
declare const sessionStorage: { getItem(k: string): string | null };

const db = `${tempDir()}/claw.db`;
let serve: ServeProcess;
let browser: Browser;
let uiUrl: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  serve = await startServe(db, ["--model-provider", "demo"]);
  uiUrl = /^ {2}ui: +(\S+)$/m.exec(serve.stderr())?.[1] ?? "";
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});
afterEach(async () => {
  for (const p of pages.splice(0)) await p.page.context().close();
});

/** A page opened with the address serve printed, at `hash` once connected. */
async function open(hash = "#/tasks"): Promise<WatchedPage> {
  const w = await watchedPage(browser);
  pages.push(w);
  await w.page.goto(uiUrl);
  await w.page.waitForSelector("header.top");
  if (hash !== "#/tasks") await w.page.evaluate((h) => (location.hash = h), hash);
  return w;
}

async function clean(w: WatchedPage): Promise<void> {
  expect(w.errors).toEqual([]);
  expect(await w.cspViolations()).toEqual([]);
}

async function doOk(op: string, args: unknown): Promise<any> {
  const r = await serve.op(op, args);
  if (!r.body.ok) throw new Error(`${op}: ${JSON.stringify(r.body.error)}`);
  return r.body.result;
}

const text = (w: WatchedPage, selector: string) => w.page.locator(selector).first().innerText();

test("serve prints /ui#token=…; the page keeps the token in sessionStorage, clears the address, sends it as a header", async () => {
  expect(uiUrl).toBe(`${serve.url}/ui#token=${encodeURIComponent(serve.token)}`);
  const w = await watchedPage(browser);
  pages.push(w);
  const posts: { url: string; auth?: string }[] = [];
  w.page.on("request", (r) => {
    if (r.method() === "POST") posts.push({ url: r.url(), auth: r.headers().authorization });
  });
  await w.page.goto(uiUrl);
  await w.page.waitForSelector(".counts");
  expect(w.page.url()).toBe(`${serve.url}/ui#/tasks`);
  expect(await w.page.evaluate(() => sessionStorage.getItem("tsclaw.token"))).toBe(serve.token);
  expect(posts.length).toBeGreaterThan(0);
  for (const p of posts) {
    expect(p.url).toBe(`${serve.url}/do`); // never in a POST URL
    expect(p.auth).toBe(`Bearer ${serve.token}`);
  }
  await clean(w);
});

test("a page without a token asks for one, shows no data, refuses a wrong one and connects with the right one", async () => {
  const w = await watchedPage(browser);
  pages.push(w);
  await w.page.goto(`${serve.url}/ui`);
  await w.page.waitForSelector("form.token-box");
  expect(await w.page.locator("table, .counts, header.top").count()).toBe(0);
  expect(w.requests.filter((r) => r.url.includes("/do") || r.url.includes("/ws"))).toEqual([]);
  await w.page.fill("input[name=token]", "not-the-token");
  await w.page.click("form.token-box button[type=submit]");
  await w.page.waitForSelector("form.token-box [role=alert]");
  expect(await text(w, "form.token-box [role=alert]")).toContain("unauthorized");
  expect(await w.page.evaluate(() => sessionStorage.getItem("tsclaw.token"))).toBeNull();
  expect(await w.page.locator(".counts").count()).toBe(0);
  await w.page.fill("input[name=token]", serve.token);
  await w.page.click("form.token-box button[type=submit]");
  await w.page.waitForSelector(".counts");
  // The refused call is the only error the browser reports (a 401 resource); nothing else.
  expect(w.errors.filter((e) => !e.includes("401"))).toEqual([]);
  expect(await w.cspViolations()).toEqual([]);
});

test("a task created through /do appears without a reload and reaches completed on screen", async () => {
  const w = await open();
  await w.page.waitForSelector(".counts");
  const before = Number(await text(w, "[data-count=completed]"));
  const { taskId } = await doOk("run_task", { prompt: "say `echo appeared`", title: "from /do" });
  await w.page.waitForSelector(`tr[data-task="${taskId}"]`, { timeout: 5000 });
  await w.page.waitForSelector(`tr[data-task="${taskId}"][data-status=completed]`, { timeout: 20_000 });
  expect(await text(w, `tr[data-task="${taskId}"]`)).toContain("from /do");
  await w.page.waitForFunction(
    (n) => Number(document.querySelector("[data-count=completed]")?.textContent) === n,
    before + 1,
  );
  await clean(w);
});

test("a long task's elapsed time and update age keep ticking; cancel from the page cancels it", async () => {
  const { taskId } = await doOk("run_task", { prompt: "wait `sleep 120`", title: "long one" });
  const w = await open(`#/task/${taskId}`);
  await w.page.waitForSelector("[data-field=status] .s-in_progress", { timeout: 20_000 });
  await w.page.waitForFunction(() => /ago/.test(document.querySelector("[data-field=age]")?.textContent ?? ""));
  const elapsed = await text(w, "[data-field=elapsed]");
  const age = await text(w, "[data-field=age]");
  await w.page.waitForFunction(
    ([e, a]) =>
      document.querySelector("[data-field=elapsed]")?.textContent !== e &&
      document.querySelector("[data-field=age]")?.textContent !== a,
    [elapsed, age],
  );
  expect((await doOk("get_task", { taskId })).status).toBe("in_progress"); // ticking, not finished
  await w.page.click("button.danger");
  await w.page.waitForSelector("[data-field=status] .s-cancelled", { timeout: 15_000 });
  expect((await doOk("get_task", { taskId })).status).toBe("cancelled");
  await clean(w);
});

test("a task started from the form exists, completes on screen, and a reload shows the same state", async () => {
  const w = await open();
  await w.page.click("text=Start a task");
  await w.page.fill("form.start textarea[name=prompt]", "run `echo from-the-form`");
  await w.page.fill("form.start input[name=sessionKey]", "ui-form");
  await w.page.fill("form.start input[name=title]", "form task");
  await w.page.click("form.start button[type=submit]");
  await w.page.waitForURL(/#\/task\/task_/);
  const taskId = decodeURIComponent(/#\/task\/([^?]+)/.exec(w.page.url())![1]!);
  const task = await doOk("get_task", { taskId });
  expect(task).toMatchObject({ title: "form task", sessionKey: "ui-form", kind: "run" });
  await w.page.waitForSelector("[data-field=status] .s-completed", { timeout: 20_000 });
  expect(await text(w, ".card:has(h3:text('Summary'))")).toContain("from-the-form");
  await w.page.reload();
  await w.page.waitForSelector("[data-field=status] .s-completed");
  expect(await text(w, "h2")).toBe("form task");
  expect(await w.page.locator("form.token-box").count()).toBe(0);
  await clean(w);
});

test("a session's messages and bus events update live; the prompt box prompts and shows the result", async () => {
  const s = await doOk("start_session", { sessionKey: "ui-live" });
  const w = await open(`#/session/${s.sessionId}`);
  await w.page.waitForSelector("form.prompt");
  await doOk("prompt", { session: s.sessionId, message: "please `echo live-from-do`" });
  await w.page.waitForSelector(".msg.tool .result:has-text('live-from-do')", { timeout: 10_000 });
  await w.page.waitForSelector(".msg.assistant:has-text('live-from-do')");
  expect(await w.page.locator("ol.events.live li").count()).toBeGreaterThan(0);
  await w.page.fill("form.prompt textarea", "and `echo typed-in-the-box`");
  await w.page.click("form.prompt button[type=submit]");
  await w.page.waitForSelector(".msg.tool .result:has-text('typed-in-the-box')", { timeout: 10_000 });
  const { messages } = await doOk("get_messages", { session: s.sessionId });
  expect(messages.some((m: any) => m.role === "user" && m.text === "and `echo typed-in-the-box`")).toBe(true);
  await clean(w);
});

test("abort from the session page stops the run", async () => {
  const s = await doOk("start_session", { sessionKey: "ui-abort" });
  const w = await open(`#/session/${s.sessionId}`);
  await w.page.waitForSelector("form.prompt");
  await w.page.fill("form.prompt textarea", "wait `sleep 120`");
  await w.page.click("form.prompt button[type=submit]");
  await w.page.waitForSelector(".msg.tool:has-text('sleep 120')", { timeout: 10_000 });
  await w.page.waitForFunction(() => document.querySelector("[data-field=running]")?.textContent === "running");
  await w.page.click("form.prompt button.danger");
  await w.page.waitForFunction(
    () => document.querySelector("[data-field=running]")?.textContent === "idle",
    undefined,
    {
      timeout: 15_000,
    },
  );
  expect((await doOk("get_state", { session: s.sessionId })).isRunning).toBe(false);
  await clean(w);
});

test("a running command's output shows as it arrives, before the command ends", async () => {
  const s = await doOk("start_session", { sessionKey: "ui-output" });
  const w = await open(`#/session/${s.sessionId}`);
  await w.page.waitForSelector("form.prompt");
  // The first line comes at once; the command then runs for a minute.
  const run = serve.op("prompt", { session: s.sessionId, message: "go `echo first-line-now; sleep 60; echo never`" });
  await w.page.waitForSelector(".msg.tool .result.running pre.live-output:has-text('first-line-now')", {
    timeout: 15_000,
  });
  expect((await doOk("get_state", { session: s.sessionId })).isRunning).toBe(true); // still running
  expect(await w.page.locator(".msg.tool .result.running").count()).toBe(1);
  await doOk("abort", { session: s.sessionId });
  await run;
  await clean(w);
});

test("no Loading… under the token box; sessions and buses appear without a Refresh click; long JSON wraps", async () => {
  const w = await watchedPage(browser);
  pages.push(w);
  await w.page.goto(`${serve.url}/ui#/sessions`); // no token: the token box
  await w.page.waitForSelector("form.token-box");
  expect(await w.page.locator("text=Loading").count()).toBe(0);
  await w.page.fill("form.token-box input[name=token]", serve.token);
  await w.page.click("form.token-box button[type=submit]");
  await w.page.waitForSelector("table.sessions");
  await doOk("start_session", { sessionKey: "appears-by-itself" });
  await w.page.waitForSelector("table.sessions td:has-text('appears-by-itself')", { timeout: 10_000 });
  await w.page.evaluate(() => (location.hash = "#/buses"));
  await w.page.waitForSelector("table.buses");
  const long = { text: "x".repeat(3000), list: Array.from({ length: 200 }, (_, i) => `item-${i}`) };
  await doOk("out", { bus: "wide", payload: long });
  await w.page.waitForSelector("tr[data-bus=wide]", { timeout: 10_000 });
  await w.page.evaluate(() => (location.hash = "#/bus/wide"));
  await w.page.waitForSelector("ol.events li button");
  await w.page.click("ol.events li button");
  await w.page.waitForSelector("pre.json");
  // Nothing wider than the window: no horizontal scrolling.
  const widths = await w.page.evaluate(() => ({
    page: (document as any).documentElement.scrollWidth as number,
    window: (globalThis as any).innerWidth as number,
  }));
  expect(widths.page).toBeLessThanOrEqual(widths.window);
  await clean(w);
});

test("a bus tail shows new events live, pretty-prints a payload, pauses and resumes", async () => {
  for (let n = 1; n <= 3; n++) await doOk("out", { bus: "web", payload: { n } });
  const w = await open("#/bus/web");
  await w.page.waitForSelector("[data-field=mode].m-live");
  expect(await w.page.locator("ol.events li").count()).toBe(3);
  await doOk("out", { bus: "web", payload: { n: 4, note: "live" } });
  await w.page.waitForSelector("li[data-seq='4']");
  await w.page.click("li[data-seq='4'] button");
  expect(await text(w, "li[data-seq='4'] pre.json")).toBe('{\n  "n": 4,\n  "note": "live"\n}');
  await w.page.click("text=Pause");
  await w.page.waitForSelector("[data-field=mode].m-paused");
  await doOk("out", { bus: "web", payload: { n: 5 } });
  await w.page.waitForTimeout(300);
  expect(await w.page.locator("li[data-seq='5']").count()).toBe(0);
  await w.page.click("text=Resume");
  await w.page.waitForSelector("li[data-seq='5']");
  await w.page.waitForSelector("[data-field=mode].m-live");
  await doOk("out", { bus: "web", payload: { n: 6 } });
  await w.page.waitForSelector("li[data-seq='6']");
  await clean(w);
});

test("sessions and buses list what the server has", async () => {
  const w = await open("#/sessions");
  await w.page.waitForSelector("table.sessions td:has-text('ui-live')");
  await w.page.evaluate(() => (location.hash = "#/buses"));
  await w.page.waitForSelector("tr[data-bus=web]");
  const { buses } = await doOk("list_buses", {});
  const web = buses.find((b: any) => b.bus === "web");
  expect(await text(w, "tr[data-bus=web] [data-field=count]")).toBe(String(web.count));
  await clean(w);
});

test("after a restart, a task the crash interrupted shows its error and suggested recovery", async () => {
  const { taskId } = await doOk("run_task", { prompt: "wait `sleep 120`", title: "cut by a crash" });
  let status = "todo";
  while (status !== "in_progress")
    status = (await doOk("check_task", { taskId, until: "update", waitMs: 5000 })).task.status;
  await serve.kill9();
  serve = await startServe(db, ["--model-provider", "demo"]);
  uiUrl = `${serve.url}/ui#token=${encodeURIComponent(serve.token)}`; // a later start does not print it
  const task = await doOk("get_task", { taskId });
  expect(task.status).toBe("error");
  const w = await open(`#/task/${taskId}`);
  await w.page.waitForSelector("[data-field=error]");
  expect(await text(w, "[data-field=error]")).toContain(task.error.code);
  expect(await text(w, "[data-field=recovery]")).toContain(task.error.suggestedRecovery);
  expect(await w.page.locator("button.danger").count()).toBe(0); // nothing left to cancel
  await clean(w);
});
