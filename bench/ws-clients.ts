/**
 * WebSocket subscribers in their own process. Opens `clients` sockets to `url`; in "tsclaw" mode
 * each subscribes to bus "fan" first. Prints {"ready":true} when all are set, then {"done":true}
 * once every socket has received `events` event frames. Frames are counted, not parsed, so the
 * client costs the same against either server. In "stall" mode each socket subscribes, then
 * stops reading (a stalled consumer); the server side observes whether it gets cut.
 * Sends BENCH_TOKEN (when set) as `Authorization: Bearer …` on the upgrade.
 * Usage: node --import tsx bench/ws-clients.ts <url> <tsclaw|raw|stall> <clients> <events>
 */
import WebSocket from "ws";

const [url, mode, clientsArg, eventsArg] = process.argv.slice(2);
const clients = Number(clientsArg);
const events = Number(eventsArg);
let ready = 0;
let done = 0;

function open(): void {
  const headers: Record<string, string> = process.env.BENCH_TOKEN
    ? { authorization: `Bearer ${process.env.BENCH_TOKEN}` }
    : {};
  const ws = new WebSocket(url!, { perMessageDeflate: false, headers });
  let count = 0;
  let subscribed = mode === "raw";
  ws.on("open", () => {
    if (mode !== "raw") ws.send(JSON.stringify({ op: "subscribe", args: { bus: "fan" }, id: "s" }));
    else if (++ready === clients) say({ ready: true });
  });
  ws.on("message", () => {
    if (!subscribed) {
      subscribed = true; // the subscribe response precedes every event
      if (mode === "stall") (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      if (++ready === clients) say({ ready: true });
      return;
    }
    if (++count === events && ++done === clients) {
      say({ done: true });
      setImmediate(() => process.exit(0));
    }
  });
  ws.on("close", (code) => {
    if (mode === "stall") return;
    if (count < events) {
      process.stderr.write(`ws client: closed with ${code} after ${count} of ${events} events\n`);
      process.exit(1);
    }
  });
  ws.on("error", (err) => {
    process.stderr.write(`ws client: ${err.message}\n`);
    process.exit(1);
  });
}

function say(msg: object): void {
  process.stdout.write(`${JSON.stringify(msg)}\n`);
}

for (let i = 0; i < clients; i++) open();
