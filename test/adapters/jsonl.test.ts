import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { JsonLinesSplitter, jsonLine, readJsonLines } from "../../adapters/jsonl.js";

function split(chunks: (string | Buffer)[], max?: number) {
  const out: (string | { oversize: number })[] = [];
  const s = new JsonLinesSplitter({ line: (l) => out.push(l), oversize: (n) => out.push({ oversize: n }) }, max);
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

describe("JSON-lines framer", () => {
  it("splits on LF only: U+2028 and U+2029 stay inside the line", () => {
    const text = `{"a":"x\u2028y"}\n{"b":"\u2029"}\n`;
    expect(split([text])).toEqual(['{"a":"x\u2028y"}', '{"b":"\u2029"}']);
  });

  it("keeps multi-byte characters split across chunks", () => {
    const bytes = Buffer.from('{"s":"\u00e9\u2028\ud83d\ude00"}\n', "utf8");
    const chunks = [...bytes].map((b) => Buffer.from([b])); // one byte per chunk
    expect(split(chunks)).toEqual(['{"s":"\u00e9\u2028\ud83d\ude00"}']);
  });

  it("drops one trailing CR and delivers a final unterminated line", () => {
    expect(split(["a\r\nb\r\n", "c"])).toEqual(["a", "b", "c"]);
  });

  it("reports an oversized line once and goes on with the next", () => {
    const out = split(["x".repeat(30), "y".repeat(30), "\nok\n"], 50);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ oversize: 60 });
    expect(out[1]).toBe("ok");
  });

  it("accepts a line of exactly the limit", () => {
    expect(split(["x".repeat(50) + "\n"], 50)).toEqual(["x".repeat(50)]);
  });

  it("reads lines from a stream", async () => {
    const got = [];
    for await (const item of readJsonLines(Readable.from([Buffer.from("a\nb"), Buffer.from("c\n\n")]))) got.push(item);
    expect(got).toEqual([{ line: "a" }, { line: "bc" }, { line: "" }]);
  });

  it("encodes a line with U+2028 escaped and one LF at the end", () => {
    const line = jsonLine({ s: "a\u2028b" });
    expect(line).toBe('{"s":"a\\u2028b"}\n');
    expect(JSON.parse(line)).toEqual({ s: "a\u2028b" });
  });
});
