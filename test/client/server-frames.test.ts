/**
 * The remote client validates what the server sends with the frames' schemas: an event frame
 * that is not one (a seq that is not a number) reaches no subscription, and a response that is
 * not an envelope fails its request with `internal` instead of handing the caller a wrong shape.
 * Driven through a scripted socket: a real server never sends such frames.
 */
import { expect, it } from "vitest";
import {
  type ChannelMember,
  type EventFrame,
  SocketChannel,
  type SocketLike,
} from "../../src/client/socket-channel.js";

/** A socket whose frames the test writes; it records what the client sent. */
class ScriptedSocket implements SocketLike {
  static last: ScriptedSocket | undefined;
  readyState = 1;
  sent: { op: string; args: unknown; id: number }[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code?: number }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {
    ScriptedSocket.last = this;
    queueMicrotask(() => this.onopen?.({}));
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(): void {}
  frame(value: unknown): void {
    this.onmessage?.({ data: JSON.stringify(value) });
  }
}

it("drops malformed event frames and fails a request answered by a malformed response", async () => {
  const channel = new SocketChannel("ws://test/ws", ScriptedSocket);
  const received: EventFrame[] = [];
  let attached!: () => void;
  const opened = new Promise<void>((r) => (attached = r));
  const member: ChannelMember = { attach: () => attached(), detach() {}, receive: (f) => received.push(f), end() {} };
  channel.add(member);
  await opened;
  const socket = ScriptedSocket.last!;

  const subscribed = channel.request("subscribe", { bus: "b" }, () => channel.bind("s1", member));
  socket.frame({ id: socket.sent[0]!.id, ok: true, result: { sub: "s1", lastSeq: 0 } });
  await subscribed;
  socket.frame({ event: "bus", sub: "s1", bus: "b", seq: "one", ts: 1, payload: 1 });
  socket.frame({ event: "bus", sub: "s1", bus: "b", seq: 1, ts: 1, payload: { x: 1 } });
  expect(received).toEqual([{ event: "bus", sub: "s1", bus: "b", seq: 1, ts: 1, payload: { x: 1 } }]);

  const answered = channel.request("read", { bus: "b" });
  socket.frame({ id: socket.sent[1]!.id, ok: false, error: { code: 42 } });
  await expect(answered).rejects.toMatchObject({ code: "internal", message: /malformed response/ });

  const failed = channel.request("read", { bus: "b" });
  socket.frame({ id: socket.sent[2]!.id, ok: false, error: { code: "not_found", message: "no", retryable: false } });
  await expect(failed).rejects.toMatchObject({ code: "not_found", message: "no" });
  channel.close();
});

it("the client's frame check accepts and refuses exactly what serverFrameSchema does", async () => {
  const { serverFrameSchema } = await import("../../src/core/wire.js");
  const { checkServerFrame } = await import("../../src/client/server-frame.js");
  const cases: unknown[] = [
    { event: "bus", sub: "s1", bus: "b", seq: 3, ts: 1, payload: { a: 1 } },
    { event: "bus", sub: "s1", bus: "b", seq: 3.5, ts: 1, payload: 1 },
    { event: "bus", sub: 1, bus: "b", seq: 3, ts: 1 },
    { event: "bus", sub: "s1", bus: "b", seq: 3, ts: "1" },
    { event: "closing" },
    { event: 4008 },
    { id: 1, ok: true, result: { x: 1 } },
    { id: null, ok: true },
    { id: "a", ok: false, error: { code: "not_found", message: "m", retryable: false } },
    { id: "a", ok: false, error: { code: "not_found", message: "m", retryable: false, details: { k: 1 } } },
    { id: "a", ok: false, error: { code: 42, message: "m", retryable: false } },
    { id: "a", ok: false, error: { code: "x", message: "m" } },
    { id: 1, ok: "yes" },
    { id: {}, ok: true },
    [],
    null,
    "frame",
  ];
  for (const c of cases)
    expect("frame" in checkServerFrame(c), JSON.stringify(c)).toBe(serverFrameSchema.safeParse(c).success);
});
