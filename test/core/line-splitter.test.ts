/**
 * The one line splitter: LF only, one trailing CR removed, a line over the bound cut (bash
 * output) or dropped and reported once (JSON lines), whether it arrives in one chunk or many.
 */
import { describe, expect, it } from "vitest";
import { LineSplitter, type LineSplitterOptions } from "../../src/core/line-splitter.js";

function split(chunks: (string | Buffer)[], options: LineSplitterOptions) {
  const lines: [string, boolean][] = [];
  const overlong: number[] = [];
  const s = new LineSplitter((line, cut) => lines.push([line, cut]), {
    ...options,
    onOverlong: (n) => overlong.push(n),
  });
  for (const c of chunks) s.push(c);
  s.end();
  return { lines, overlong };
}

describe("line splitter", () => {
  it("splits on LF only and removes one CR; a final unterminated line comes at the end", () => {
    const { lines } = split(["a\r\nb\u2028c\n\n", "d\r\r\n", "e"], { maxLineBytes: 100 });
    expect(lines).toEqual([
      ["a", false],
      ["b\u2028c", false],
      ["", false],
      ["d\r", false],
      ["e", false],
    ]);
  });

  it("cuts a long line at the bound, in one chunk or across chunks, never inside a character", () => {
    const whole = split(["ab€cdef\nok\n"], { maxLineBytes: 4 });
    expect(whole.lines).toEqual([
      ["ab", true],
      ["ok", false],
    ]);
    expect(whole.overlong).toEqual([9]);
    const spread = split(["ab", "€cd", "ef\nok\n"], { maxLineBytes: 4 });
    expect(spread.lines).toEqual(whole.lines);
    expect(spread.overlong).toEqual([7]); // told as soon as the line passed the bound: 2 + 5 bytes seen
  });

  it("drops a long line whole in drop mode and goes on with the next", () => {
    const { lines, overlong } = split(["x".repeat(8), "y".repeat(8), "\nfits\n", "z".repeat(20), "\nlast"], {
      maxLineBytes: 10,
      overlong: "drop",
    });
    expect(lines).toEqual([
      ["fits", false],
      ["last", false],
    ]);
    expect(overlong).toEqual([16, 20]);
  });

  it("passes a line of exactly the bound whole", () => {
    expect(split(["12345\n", "678", "90\n"], { maxLineBytes: 5, overlong: "drop" }).lines).toEqual([
      ["12345", false],
      ["67890", false],
    ]);
  });
});
