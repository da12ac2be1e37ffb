/**
 * What `serve` says about the dashboard: the start that generates the token prints the UI address
 * with the token in the fragment; a later start on the same database prints the address without
 * it and says where the token file is, and the page it points to still loads without a token.
 */
import { expect, test } from "vitest";
import { startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";

const uiLine = (stderr: string) => /^ {2}ui: +(.+)$/m.exec(stderr)?.[1];

test("the first start prints /ui#token=…, a later one /ui and the token file, never the token", async () => {
  const db = `${tempDir()}/claw.db`;
  const first = await startServe(db, ["--model-provider", "demo"]);
  try {
    expect(uiLine(first.stderr())).toBe(`${first.url}/ui#token=${encodeURIComponent(first.token)}`);
  } finally {
    await first.stop();
  }
  const later = await startServe(db, ["--model-provider", "demo"]);
  try {
    const line = uiLine(later.stderr())!;
    expect(line).toBe(`${later.url}/ui  (it asks for the token: the token is in ${db}.token)`);
    expect(later.stderr()).not.toContain(later.token);
    const page = await fetch(`${later.url}/ui`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
  } finally {
    await later.stop();
  }
});
