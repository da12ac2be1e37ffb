/**
 * Takes the README's screenshots of the dashboard (docs/ui-*.png): starts the built serve
 * (dist/cli.js, demo model) on a temporary database, gives it some tasks, a session and bus
 * events, and photographs the main views in Debian's Chromium. Run: npm run build && tsx scripts/ui-screenshots.ts
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

// Globals of the page, for the functions that run there (scripts compile without the DOM library).
declare const location: { hash: string };
declare function scrollTo(x: number, y: number): void;

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "tsclaw-shots-"));
const child = spawn(process.execPath, [join(root, "dist/cli.js"), "serve", "--listen", "127.0.0.1:0", "--db", join(dir, "claw.db"), "--model-provider", "demo", "--project", "demo"], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
let err = "";
child.stderr.setEncoding("utf8");
const ui = await new Promise<string>((resolve, reject) => {
  child.stderr.on("data", (c: string) => {
    err += c;
    const m = /^ {2}ui: +(\S+)$/m.exec(err);
    if (m && /^ {2}guide: /m.test(err)) resolve(m[1]!);
  });
  child.on("exit", () => reject(new Error(err)));
});
const base = ui.slice(0, ui.indexOf("/ui"));
const token = decodeURIComponent(ui.slice(ui.indexOf("#token=") + 7));
async function op(name: string, args: unknown): Promise<any> {
  const res = await fetch(`${base}/do`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ op: name, args }) });
  const body = (await res.json()) as { ok: boolean; result: unknown; error: unknown };
  if (!body.ok) throw new Error(JSON.stringify(body.error));
  return body.result;
}
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

const done = await op("run_task", { prompt: "Count the files: `ls / | wc -l`", title: "Count the files in /", sessionKey: "files" });
await op("run_task", { prompt: "Show the kernel: `uname -a`", title: "Which kernel is this?", sessionKey: "kernel" });
for (const title of ["Review the release notes", "Triage the flaky test"]) await op("task_create", { title });
await wait(1500);
const long = await op("run_task", { prompt: "Wait for the build: `sleep 30; echo built`", title: "Wait for the nightly build", sessionKey: "build" });
for (let n = 1; n <= 18; n++) await op("out", { bus: "deploys", payload: { type: "deploy", n, service: n % 2 ? "api" : "web", ok: n % 7 !== 0 } });
await wait(3500);

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1 });
await page.goto(ui);
await page.waitForSelector("tr[data-task]");
const shot = async (hash: string, name: string, ready: string) => {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.waitForSelector(ready);
  await wait(600);
  await page.screenshot({ path: join(root, "docs", `ui-${name}.png`) });
};
await shot("#/tasks", "tasks", "tr[data-task]");
await shot(`#/task/${long.taskId}`, "task", "[data-field=elapsed]");
await shot(`#/session/${done.sessionId}`, "session", ".msg.assistant");
await page.evaluate(() => (location.hash = "#/bus/deploys"));
await page.waitForSelector("li[data-seq='18']");
await page.click("li[data-seq='12'] button");
await page.evaluate(() => scrollTo(0, 0));
await wait(300);
await page.screenshot({ path: join(root, "docs", "ui-bus.png") });
await browser.close();
child.kill("SIGTERM");
