/**
 * Debian's Chromium driven by playwright-core (no browser download), for the dashboard tests.
 * Each page records console errors, uncaught exceptions and Content-Security-Policy violations,
 * so a test can assert there were none.
 */
import { type Browser, chromium, type Page } from "playwright-core";

/** Launches /usr/bin/chromium headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** A page plus what went wrong on it. */
export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** CSP violations (directive and blocked URI). */
  cspViolations(): Promise<string[]>;
  /** Every request the page made (method and URL). */
  requests: { method: string; url: string }[];
}

/** A fresh page (its own context: its own sessionStorage) that records errors and violations. */
export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: { method: string; url: string }[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => requests.push({ method: r.method(), url: r.url() }));
  // Runs in the page before its own scripts (the test compiles without the DOM library, hence the casts).
  await page.addInitScript(() => {
    const seen: string[] = [];
    const g = globalThis as unknown as {
      __csp: string[];
      document: {
        addEventListener(t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void): void;
      };
    };
    g.__csp = seen;
    g.document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return {
    page,
    errors,
    requests,
    cspViolations: () => page.evaluate(() => (globalThis as { __csp?: string[] }).__csp ?? []),
  };
}
