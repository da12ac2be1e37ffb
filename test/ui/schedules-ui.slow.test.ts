/**
 * The Schedules view in Debian's Chromium against a real `tsclaw serve`: a schedule created from
 * the page appears with its next due time and health; its firings show live on its page without
 * a reload; pause, resume and trigger work from the page. No console error, no CSP violation.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { launchChromium, watchedPage } from "../helpers/browser.js";
import { tempDir } from "../helpers/claw.js";

let serve: ServeProcess;
let browser: Browser;
let uiUrl: string;

beforeAll(async () => {
  serve = await startServe(`${tempDir()}/claw.db`, ["--model-provider", "demo"]);
  uiUrl = /^ {2}ui: +(\S+)$/m.exec(serve.stderr())?.[1] ?? "";
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

test("create a schedule from the page, watch it fire live, pause, resume and trigger it", async () => {
  const w = await watchedPage(browser);
  const page = w.page;
  await page.goto(uiUrl);
  await page.waitForSelector("header.top");
  await page.click("nav >> text=Schedules");
  await page.click("text=New schedule");
  await page.fill("input[name=name]", "ui beat");
  await page.selectOption("select[name=kind]", "every");
  await page.fill("input[name=every]", "1s");
  await page.selectOption("select[name=actionKind]", "out");
  await page.fill("input[name=bus]", "ui-beats");
  await page.fill("textarea[name=body]", '{"beat": true}');
  await page.click("form >> button[type=submit]");
  const row = page.locator("tr[data-schedule]").filter({ hasText: "ui beat" });
  await row.waitFor();
  expect(await row.locator("[data-field=next]").innerText()).not.toBe("—");
  // Health and last outcome follow the schedules bus, no reload.
  await expect.poll(() => row.locator("[data-field=health]").innerText(), { timeout: 8000 }).toBe("healthy");
  await row.locator("a").click();
  await page.waitForSelector("table.firings");
  const okRows = page.locator("table.firings tr[data-firing]").filter({ hasText: "ok" });
  const before = await okRows.count();
  await expect.poll(() => okRows.count(), { timeout: 8000 }).toBeGreaterThan(before + 1);

  await page.click("h2 >> text=Pause");
  await expect.poll(() => page.locator("[data-field=next]").innerText()).toBe("paused");
  await page.click("h2 >> text=Trigger now");
  await expect
    .poll(() => page.locator("table.firings tr[data-firing]").first().innerText(), { timeout: 5000 })
    .toMatch(/trigger\s+ok/);
  await page.click("h2 >> text=Resume");
  await expect.poll(() => page.locator("[data-field=next]").innerText()).not.toBe("paused");
  expect(w.errors).toEqual([]);
  expect(await w.cspViolations()).toEqual([]);
  await page.context().close();
});
