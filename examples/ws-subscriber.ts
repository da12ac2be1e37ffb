/**
 * A WebSocket subscriber that loses nothing: it remembers the last seq it handled and, after any
 * disconnect (network drop, server restart, a 4008 slow-consumer close), reconnects and
 * subscribes again with `after` = that seq. Prints one JSON line per event.
 *
 * Usage: CLAW_URL=http://127.0.0.1:8000 npx tsx examples/ws-subscriber.ts [bus] [--after N] [--count N]
 * CLAW_TOKEN is sent as a bearer token when set.
 */
import WebSocket from "ws";

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv.splice(i, 2)[1] : undefined;
};
const afterFlag = flag("after");
const count = Number(flag("count") ?? Infinity);
const bus = argv[0] ?? "thebus";
const url = `${(process.env.CLAW_URL || "http://127.0.0.1:8000").replace(/^http/, "ws").replace(/\/+$/, "")}/ws`;
const headers: Record<string, string> = process.env.CLAW_TOKEN
  ? { authorization: `Bearer ${process.env.CLAW_TOKEN}` }
  : {};

/** The last seq handled; undefined until known (then: only new events). */
let lastSeq: number | undefined = afterFlag === undefined ? undefined : Number(afterFlag);
let printed = 0;
let delay = 100;

function connect(): void {
  const ws = new WebSocket(url, { headers });
  ws.on("open", () => {
    delay = 100;
    ws.send(
      JSON.stringify({ op: "subscribe", args: lastSeq === undefined ? { bus } : { bus, after: lastSeq }, id: "sub" }),
    );
  });
  ws.on("message", (data) => {
    const frame = JSON.parse(data.toString());
    if (frame.id === "sub") {
      if (!frame.ok) {
        console.error(`subscribe failed: ${frame.error.code}: ${frame.error.message}`);
        process.exit(1);
      }
      lastSeq ??= frame.result.lastSeq; // from now on, a reconnect resumes from here
    } else if (frame.event === "bus") {
      if (lastSeq !== undefined && frame.seq <= lastSeq) return; // already handled
      console.log(JSON.stringify({ seq: frame.seq, ts: frame.ts, payload: frame.payload }));
      lastSeq = frame.seq;
      if (++printed >= count) {
        ws.close();
        process.exit(0);
      }
    } else if (frame.event === "closing") {
      console.error(`server closing the socket (${frame.reason}); will resume after ${lastSeq}`);
    }
  });
  ws.on("close", (code) => {
    console.error(`disconnected (${code}); reconnecting in ${delay} ms, after seq ${lastSeq ?? "(new events)"}`);
    setTimeout(connect, delay);
    delay = Math.min(delay * 2, 5000);
  });
  ws.on("error", (err) => console.error(`websocket: ${err.message}`)); // 'close' follows
}

connect();
