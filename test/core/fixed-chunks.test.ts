/** A batch's statement sizes from a few fixed ones: as few statements as the sizes allow. */
import { expect, test } from "vitest";
import { fixedChunks } from "../../src/store/fixed-chunks.js";

test("splits a count into the sizes, largest first, with any remainder last", () => {
  expect(fixedChunks(0, [100, 10, 1])).toEqual([]);
  expect(fixedChunks(111, [100, 10, 1])).toEqual([100, 10, 1]);
  expect(fixedChunks(63, [64, 16, 4, 1])).toEqual([16, 16, 16, 4, 4, 4, 1, 1, 1]);
  expect(fixedChunks(150, [64])).toEqual([64, 64, 22]);
});
