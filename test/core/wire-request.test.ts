import { describe, expect, it } from "vitest";
import { parseRequest, requestSchema } from "../../src/core/wire.js";

// parseRequest takes the usual envelope as it is and sends everything else through the schema:
// for every value, it must accept exactly what the schema accepts, with the same result.
const ENVELOPES: unknown[] = [
  { op: "out", args: { payload: { a: 1 } }, id: 1 },
  { op: "out" },
  { op: "out", id: "abc" },
  { op: "out", args: {} },
  { op: "out", args: Object.assign(Object.create(null), { bus: "b" }) },
  { op: "out", callId: "c".repeat(16) },
  { op: "out", callId: "c".repeat(200) },
  { op: "out", callId: "c".repeat(15) },
  { op: "out", callId: "c".repeat(201) },
  { op: "out", callId: 7 },
  { op: "" },
  { op: 1 },
  {},
  { op: "out", id: null },
  { op: "out", id: Number.NaN },
  { op: "out", id: Number.POSITIVE_INFINITY },
  { op: "out", id: true },
  { op: "out", args: [] },
  { op: "out", args: null },
  { op: "out", args: "x" },
  { op: "out", args: new Date(0) },
  { op: "out", args: new Map() },
  { op: "out", extra: 1 },
  { op: "out", id: undefined, args: undefined, callId: undefined },
  JSON.parse('{"op":"out","args":{"__proto__":{"x":1},"bus":"b"}}'),
  JSON.parse('{"op":"out","__proto__":{"x":1}}'),
  Object.assign(Object.create(null), { op: "out" }),
  [],
  null,
  "out",
  42,
];

function viaParse(value: unknown): { ok: true; value: unknown } | { ok: false; code: string } {
  try {
    return { ok: true, value: parseRequest(value) };
  } catch (err) {
    return { ok: false, code: (err as { code: string }).code };
  }
}

describe("parseRequest", () => {
  it("accepts exactly what the request schema accepts, with the same value", () => {
    for (const value of ENVELOPES) {
      const schema = requestSchema.safeParse(value);
      const got = viaParse(value);
      expect({ value, ok: got.ok }).toEqual({ value, ok: schema.success });
      if (got.ok && schema.success) expect(got.value).toEqual(schema.data);
      else if (!got.ok) expect(got.code).toBe("invalid_request");
    }
  });

  it("takes a plain envelope as it is (no copy)", () => {
    const envelope = { op: "out", args: { payload: 1 }, id: 3 };
    expect(parseRequest(envelope)).toBe(envelope);
  });
});
