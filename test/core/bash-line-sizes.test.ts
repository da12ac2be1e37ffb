/**
 * Line events of ASCII output skip the per-event byte count (the size is the text's length);
 * output with other characters is counted. Whatever the mix and however the kernel cuts the
 * output into chunks (a character, or a line, split across them), every stored event's size is
 * its payload's UTF-8 length, which is what page budgets are planned from.
 */
import { afterEach, expect, it } from "vitest";
import type { Claw } from "../../src/index.js";
import { memClaw } from "../helpers/claw.js";

let claw: Claw | undefined;
afterEach(async () => {
  await claw?.close();
  claw = undefined;
});

function stored(c: Claw, bus: string): { size: number; payload: string }[] {
  return c.services.db
    .prepare("SELECT size, payload FROM events WHERE id >> 40 = (SELECT id FROM buses WHERE bus = ?) ORDER BY id")
    .all(bus) as { size: number; payload: string }[];
}

it("every line event's stored size is its UTF-8 length, across chunks that split characters and lines", async () => {
  claw = memClaw();
  // The sleeps make separate writes, so separate chunks: an ASCII chunk after a held non-ASCII
  // start of a line (and one held over two chunks), a character split in two, non-ASCII template text, a last line without "\n".
  const script = [
    "printf 'plain\\nab'",
    "printf '\\xc3'",
    "printf '\\xa9cd\\nnext\\nx\\xc3\\xa9'",
    "printf 'rest\\nok\\n\\xc3\\xa9'",
    "printf 'mid'",
    "printf 'end\\n'",
    "seq 1 3",
    "printf 'tail-\\xc3\\xa9'",
  ].join("; sleep 0.05; ");
  const r = await claw.bash({ script, stdoutLineEvent: { template: { line: "{payload}" }, bus: "mix" } });
  expect(r.exitCode).toBe(0);
  const rows = stored(claw, "mix");
  expect(rows.map((e) => JSON.parse(e.payload).line)).toEqual([
    "plain",
    "abécd",
    "next",
    "xérest",
    "ok",
    "émidend",
    "1",
    "2",
    "3",
    "tail-é",
  ]);
  for (const e of rows) expect(e.size).toBe(Buffer.byteLength(e.payload));

  // ASCII lines with a template that is not ASCII: counted too.
  await claw.bash({ script: "seq 1 5", stdoutLineEvent: { template: { line: "«{payload}»" }, bus: "tpl" } });
  const tpl = stored(claw, "tpl");
  expect(tpl.map((e) => JSON.parse(e.payload).line)).toEqual(["«1»", "«2»", "«3»", "«4»", "«5»"]);
  for (const e of tpl) expect(e.size).toBe(Buffer.byteLength(e.payload));
});
