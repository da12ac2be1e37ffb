/**
 * WhileBusy: the first call goes at once, the calls that come while a batch is on its way go
 * together in the next; each gets its own output; one input a batch's statement chokes on fails
 * alone (the others go again one by one), while a store that is unavailable fails them all.
 */
import { expect, test } from "vitest";
import { ClawError } from "../../src/core/errors.js";
import { distinctRounds, WhileBusy } from "../../src/core/while-busy.js";

/** A sender that records its batches and answers each when told to. */
function heldSender(answer: (inputs: readonly number[]) => number[] = (xs) => xs.map((x) => x * 10)) {
  const batches: number[][] = [];
  const pending: Array<() => void> = [];
  const send = (inputs: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push([...inputs]);
      pending.push(() => {
        try {
          resolve(answer(inputs));
        } catch (err) {
          reject(err);
        }
      });
    });
  const release = async () => {
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    pending.shift()!();
  };
  return { send, batches, release };
}

test("a lone call goes at once; calls that come meanwhile go together next, each with its own output", async () => {
  const s = heldSender();
  const busy = new WhileBusy(s.send);
  const first = busy.call(1);
  expect(s.batches).toEqual([[1]]);
  const rest = [busy.call(2), busy.call(3), busy.call(4)];
  expect(s.batches).toEqual([[1]]); // they wait for the first
  await s.release();
  expect(await first).toBe(10);
  await s.release();
  expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  expect(s.batches).toEqual([[1], [2, 3, 4]]);
  // Idle again: the next call goes at once.
  const later = busy.call(5);
  expect(s.batches.at(-1)).toEqual([5]);
  await s.release();
  expect(await later).toBe(50);
});

test("a batch that fails goes again one by one: only the input it failed for fails", async () => {
  const s = heldSender((xs) => {
    if (xs.includes(13)) throw new Error("13 is refused");
    return xs.map((x) => x * 10);
  });
  const busy = new WhileBusy(s.send);
  const first = busy.call(1);
  const rest = [busy.call(12), busy.call(13), busy.call(14)].map((p) =>
    p.then(
      (v) => v,
      (e: Error) => e.message,
    ),
  );
  await s.release(); // [1]
  await s.release(); // [12, 13, 14] fails
  await s.release(); // [12]
  await s.release(); // [13] fails
  await s.release(); // [14]
  expect(await first).toBe(10);
  expect(await Promise.all(rest)).toEqual([120, "13 is refused", 140]);
  expect(s.batches).toEqual([[1], [12, 13, 14], [12], [13], [14]]);
});

test("an unavailable store fails the whole batch, without sending each again", async () => {
  const s = heldSender(() => {
    throw new ClawError("storage_unavailable", "the database is unavailable");
  });
  const busy = new WhileBusy(s.send);
  const first = busy.call(1).catch((e: ClawError) => e.code);
  const rest = [busy.call(2), busy.call(3)].map((p) => p.catch((e: ClawError) => e.code));
  await s.release();
  await s.release();
  expect(await first).toBe("storage_unavailable");
  expect(await Promise.all(rest)).toEqual(["storage_unavailable", "storage_unavailable"]);
  expect(s.batches).toEqual([[1], [2, 3]]);
});

test("distinctRounds: a key's n-th item goes in round n, in order, with its index", () => {
  const rounds = distinctRounds(["a", "b", "a", "c", "a", "b"], (x) => x);
  expect(rounds.map((r) => r.map(({ item, i }) => `${item}${i}`))).toEqual([["a0", "b1", "c3"], ["a2", "b5"], ["a4"]]);
});

test("with a key, a batch goes in rounds where a key comes once; a failed round goes again alone, the rounds written are not sent again", async () => {
  const batches: string[][] = [];
  const busy = new WhileBusy<string, string>(
    async (inputs) => {
      batches.push([...inputs]);
      if (inputs.length > 1 && inputs.includes("b2")) throw new Error("b2 is refused");
      if (inputs.length === 1 && inputs[0] === "b2") throw new Error("b2 is refused");
      return inputs.map((x) => x.toUpperCase());
    },
    { key: (x) => x[0]! },
  );
  const first = busy.call("z");
  const rest = ["a1", "b1", "a2", "b2", "c1"].map((x) => busy.call(x).catch((e: Error) => e.message));
  expect(await first).toBe("Z");
  expect(await Promise.all(rest)).toEqual(["A1", "B1", "A2", "b2 is refused", "C1"]);
  expect(batches).toEqual([["z"], ["a1", "b1", "c1"], ["a2", "b2"], ["a2"], ["b2"]]);
});

/** Lets the queued microtasks run (an overlapping WhileBusy sends a turn's calls in one). */
const turn = () => new Promise((r) => setImmediate(r));

test("overlap: a turn's calls go together, and the next turn's go while the first batch is on its way", async () => {
  const s = heldSender();
  const busy = new WhileBusy(s.send, { overlap: true });
  const first = [busy.call(1), busy.call(2)];
  expect(s.batches).toEqual([]); // sent once the turn's microtasks are done
  await turn();
  expect(s.batches).toEqual([[1, 2]]);
  const second = [busy.call(3), busy.call(4), busy.call(5)];
  await turn();
  // Not held back by [1, 2], which has not answered yet.
  expect(s.batches).toEqual([
    [1, 2],
    [3, 4, 5],
  ]);
  await s.release();
  await s.release();
  expect(await Promise.all(first)).toEqual([10, 20]);
  expect(await Promise.all(second)).toEqual([30, 40, 50]);
});

test("overlap with a key: a key's second call of a turn goes once its first round has answered", async () => {
  const s = heldSender();
  const busy = new WhileBusy<number, number>(s.send, { key: (x) => String(x % 10), overlap: true });
  const calls = [busy.call(1), busy.call(11), busy.call(2)];
  await turn();
  expect(s.batches).toEqual([[1, 2]]);
  await s.release();
  await turn();
  expect(s.batches).toEqual([[1, 2], [11]]);
  await s.release();
  expect(await Promise.all(calls)).toEqual([10, 110, 20]);
});

test("overlap: a batch that fails goes again one by one, without holding up the next turn's", async () => {
  const s = heldSender((xs) => {
    if (xs.includes(13)) throw new Error("13 is refused");
    return xs.map((x) => x * 10);
  });
  const busy = new WhileBusy(s.send, { overlap: true });
  const failing = [busy.call(12), busy.call(13)].map((p) => p.catch((e: Error) => e.message));
  await turn();
  const next = busy.call(7);
  await turn();
  expect(s.batches).toEqual([[12, 13], [7]]);
  await s.release(); // [12, 13] fails
  await s.release(); // [7]
  await s.release(); // [12]
  await s.release(); // [13] fails
  expect(await next).toBe(70);
  expect(await Promise.all(failing)).toEqual([120, "13 is refused"]);
});
