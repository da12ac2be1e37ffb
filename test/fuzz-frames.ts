/**
 * Malformed request frames for the fuzz test, from a seeded generator (reproducible). Each frame
 * is checked here to be really invalid (unparseable, a bad envelope, an unknown op, or arguments
 * the op's own schema rejects), so every one must be answered with an error envelope.
 */

import { requestSchema } from "../src/core/wire.js";
import { OPS } from "../src/ops/index.js";
import type { AnyOpDef } from "../src/ops/registry.js";
import { rng } from "./helpers/fuzz.js";

const ALL: readonly AnyOpDef[] = OPS;
const byName = new Map(ALL.flatMap((o) => [o.name, ...(o.aliases ?? [])].map((n) => [n, o] as const)));
const ALPHABET = ' {}[]":,\\/0123456789abcdefxyz-+.eEtrunlsTRUE\u2028\u2029\u00e9\ud83d\ude00\t\u0000\u001f';

/** True when dispatching `text` cannot succeed. */
export function isInvalid(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return true;
  }
  const req = requestSchema.safeParse(value);
  if (!req.success) return true;
  const op = byName.get(req.data.op);
  if (!op) return true;
  return !op.input.safeParse(req.data.args ?? {}).success;
}

/** A JSON value of a type the schema node does not take (best effort; checked afterwards). */
function wrongValue(r: () => number): unknown {
  const pool: unknown[] = [
    null,
    true,
    -1,
    1.5,
    1e300,
    "",
    "x".repeat(300),
    [],
    [1, "a"],
    { nested: { deep: [null] } },
    -0,
    "\ud800",
    "0",
  ];
  return pool[Math.floor(r() * pool.length)];
}

/** `n` invalid frames (text without a newline), reproducible for a given seed. */
export function malformedFrames(n: number, seed = 1): string[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const randomText = (max: number) =>
    Array.from({ length: 1 + Math.floor(r() * max) }, () => pick([...ALPHABET])).join("");
  const examples = ALL.map((o) => ({ op: o.name, args: o.example as Record<string, unknown> }));
  const makers: (() => string)[] = [
    () => randomText(40),
    () => {
      const full = JSON.stringify(pick(examples));
      return full.slice(0, Math.floor(r() * (full.length - 1)));
    },
    () => `${JSON.stringify(pick(examples))}${pick(["}", "]", ",", "x", " {}", "\u0000"])}`,
    () =>
      pick([
        '\'{"op":"ops"}\'',
        "{op: 'ops'}",
        '{"op":"ops",}',
        "NaN",
        "undefined",
        '{"op":"ops"} // c',
        "\ufeff{",
        "[".repeat(5000),
        '{"a":'.repeat(3000),
      ]),
    () => JSON.stringify(pick([0, -1, 3.14, "op", "", null, true, false, [], [{ op: "ops" }], ["ops", {}]])),
    () =>
      JSON.stringify(
        pick([
          {},
          { op: 5 },
          { op: "" },
          { op: null },
          { op: ["ops"] },
          { op: { name: "ops" } },
          { args: {} },
          { id: 1 },
          { OP: "ops" },
        ]),
      ),
    () =>
      JSON.stringify({
        op: pick([
          "__proto__",
          "constructor",
          "toString",
          "hasOwnProperty",
          "OPS",
          "Out",
          " out",
          "out ",
          "\ud800",
          "drop table",
          randomText(12),
        ]),
        id: Math.floor(r() * 1000),
      }),
    () =>
      `{"op":${JSON.stringify(pick(examples).op)},"args":${pick(["[1]", '"str"', "5", "null", "true", '[{"a":1}]'])}}`,
    () => `{"op":"ops","id":${pick(["{}", "[]", "true", "null", '{"x":1}', "1e999"])}}`,
    () => `{"op":${"[".repeat(2000)}${"]".repeat(2000)}}`,
    () => `{"__proto__":{"op":"ops"},"id":"p"}`,
    () => `{"op":"ops","args":{"__proto__":{"polluted":true}},"id":"pp"}`,
    () => {
      // A real operation with one argument made wrong (or an unknown one added).
      const ex = pick(examples);
      const args = { ...(ex.args ?? {}) } as Record<string, unknown>;
      const keys = Object.keys(args);
      if (keys.length === 0 || r() < 0.3) args[`fuzz_${Math.floor(r() * 100)}`] = wrongValue(r);
      else args[pick(keys)] = wrongValue(r);
      return JSON.stringify({ op: ex.op, args, id: `a${Math.floor(r() * 1e6)}` });
    },
    () => {
      const ex = pick(examples);
      const args = { ...(ex.args ?? {}) } as Record<string, unknown>;
      const keys = Object.keys(args);
      if (keys.length > 0) delete args[pick(keys)];
      return JSON.stringify({ op: ex.op, args: { ...args, [pick(["", " ", "\u2028", "a.b", "0"])]: 1 } });
    },
  ];
  const out: string[] = [];
  while (out.length < n) {
    const text = pick(makers)().replace(/\n/g, " ");
    if (text.trim() === "" || !isInvalid(text)) continue;
    out.push(text);
  }
  return out;
}
