/**
 * GET /ui on a real server (port 0): the page and its assets without a token, with their content
 * types, caching (hashed names immutable, the page revalidated) and the Content-Security-Policy;
 * nothing outside the UI folder is reachable through it; /do still needs the token.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { listenHttp, type RunningHttp } from "../../adapters/http.js";
import { createAccessPolicy } from "../../adapters/security.js";
import { defaultUiDir } from "../../adapters/ui-static.js";
import { memClaw } from "../helpers/claw.js";

let dir: string;
let server: RunningHttp;
let closeClaw: () => Promise<void>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tsclaw-ui-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>t</title>");
  writeFileSync(join(dir, "assets", "app-ABCD1234.js"), "export {};");
  writeFileSync(join(dir, "assets", "app-ABCD1234.css"), "body{}");
  writeFileSync(join(dir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  writeFileSync(join(dir, "..", "secret-beside-ui.txt"), "no");
  const claw = memClaw();
  closeClaw = () => claw.close();
  server = await listenHttp(claw, { host: "127.0.0.1", port: 0, policy: createAccessPolicy(), ui: dir });
});
afterAll(async () => {
  await server.close();
  await closeClaw();
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(dir, "..", "secret-beside-ui.txt"), { force: true });
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

test("/ui, /ui/ and deep links serve the page without a token, revalidated, under a strict CSP", async () => {
  for (const path of ["/ui", "/ui/", "/ui/task/abc"]) {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.text()).toContain("<title>t</title>");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  }
  const first = await get("/ui");
  const again = await get("/ui", { "if-none-match": first.headers.get("etag")! });
  expect(again.status).toBe(304);
});

test("hashed assets are immutable and typed; the favicon needs no token", async () => {
  const js = await get("/ui/assets/app-ABCD1234.js");
  expect(js.status).toBe(200);
  expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  const css = await get("/ui/assets/app-ABCD1234.css");
  expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  for (const path of ["/ui/favicon.svg", "/favicon.ico"]) {
    const icon = await get(path);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(icon.headers.get("cache-control")).toBe("no-cache");
  }
  const head = await fetch(`${server.url}/ui/assets/app-ABCD1234.js`, { method: "HEAD" });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe("");
});

test("nothing outside the UI folder is served; other methods are refused; /do still needs the token", async () => {
  for (const path of [
    "/ui/%2e%2e/secret-beside-ui.txt",
    "/ui/..%2fsecret-beside-ui.txt",
    "/ui/assets/missing-ABCD1234.js",
  ]) {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("no\n");
  }
  const post = await fetch(`${server.url}/ui`, { method: "POST", body: "x" });
  expect(post.status).toBe(405);
  const data = await fetch(`${server.url}/do`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ op: "list_tasks" }),
  });
  expect(data.status).toBe(401);
});

test("a server without a built UI says how to build it", async () => {
  const claw = memClaw();
  const bare = await listenHttp(claw, { host: "127.0.0.1", port: 0, ui: join(dir, "nothing-here") });
  try {
    const res = await fetch(`${bare.url}/ui`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("no file index.html");
  } finally {
    await bare.close();
    await claw.close();
  }
});

test("the package's own build is found and its page names only hashed assets of this origin", async () => {
  const built = defaultUiDir();
  if (built === undefined) throw new Error("dist/ui is missing: run npm run build first");
  const claw = memClaw();
  const real = await listenHttp(claw, { host: "127.0.0.1", port: 0 });
  try {
    const html = await (await fetch(`${real.url}/ui`)).text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3); // favicon, stylesheet, script
    expect(html).not.toMatch(/<script>|<style>|style=|https?:\/\//); // nothing inline, nothing from elsewhere
    for (const a of assets) {
      expect(a.startsWith("/ui/")).toBe(true);
      const res = await fetch(`${real.url}${a}`);
      expect(res.status).toBe(200);
      if (a.includes("/assets/")) expect(res.headers.get("cache-control")).toContain("immutable");
    }
  } finally {
    await real.close();
    await claw.close();
  }
});
