/**
 * How a node learns of other nodes' commits: one LISTEN connection per node (each commit
 * NOTIFYs `claw_bus` with its sender, the bus and its new last seq), reconnected after errors,
 * plus a slow poll of the heads of the buses this node has listeners on. Notifications are
 * fast; the poll makes a lost one (a dropped connection, a notification sent while we were
 * reconnecting) cost latency, never an event. Reading the events themselves is the bus's job:
 * it is told only "bus X now ends at seq N".
 */
import type { Client, Notification } from "pg";
import type { RemoteCommit } from "../event-store.js";
import type { Row } from "../tables/tables.js";
import type { OpenedPg } from "./open-pg.js";

/** The channel commits are announced on: payload `<node> <lastSeq> <bus>`. */
export const NOTIFY_CHANNEL = "claw_bus";

/** First and longest wait before reconnecting the LISTEN connection. */
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;

/** What {@link followPg} needs. */
export interface FollowOptions {
  /** This node's id in notifications: its own are skipped. */
  node: string;
  onCommit: RemoteCommit;
  /** Buses with listeners on this node (the ones polled). */
  watched: () => Iterable<string>;
  pollMs: number;
  log: (message: string) => void;
}

/** Follows other nodes' commits until the returned function is called. */
export function followPg(db: OpenedPg, o: FollowOptions): () => void {
  let stopped = false;
  let client: Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backoff = RECONNECT_MIN_MS;
  let polling = false;
  let pollFailed = false;

  const onNotification = (msg: Notification) => {
    const p = msg.payload;
    if (msg.channel !== NOTIFY_CHANNEL || !p) return;
    const a = p.indexOf(" ");
    const b = p.indexOf(" ", a + 1);
    if (a < 0 || b < 0 || p.slice(0, a) === o.node) return;
    const lastSeq = Number(p.slice(a + 1, b));
    if (Number.isSafeInteger(lastSeq)) o.onCommit(p.slice(b + 1), lastSeq);
  };

  const poll = async () => {
    if (polling || stopped) return;
    const buses = [...o.watched()];
    if (buses.length === 0) return;
    polling = true;
    try {
      const { rows } = await db.pool.query("SELECT bus, last_seq FROM buses WHERE bus = ANY($1::text[])", [buses]);
      pollFailed = false;
      for (const r of rows as Pick<Row<"buses", "postgres">, "bus" | "last_seq">[]) o.onCommit(r.bus, r.last_seq);
    } catch (err) {
      if (!pollFailed) o.log(`tsclaw: polling bus heads on ${db.where} failed: ${(err as Error).message}`);
      pollFailed = true; // said once until it works again
    } finally {
      polling = false;
    }
  };

  const reconnectLater = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, backoff);
    retry.unref();
    backoff = Math.min(RECONNECT_MAX_MS, backoff * 2);
  };

  const lost = (c: Client, err?: Error) => {
    if (client !== c) return;
    client = undefined;
    c.end().catch(() => {});
    if (stopped) return;
    o.log(`tsclaw: LISTEN connection to ${db.where} lost${err ? ` (${err.message})` : ""}; reconnecting`);
    reconnectLater();
  };

  const connect = async () => {
    if (stopped) return;
    let c: Client | undefined;
    try {
      c = await db.connect();
      const self = c;
      c.on("error", (err) => lost(self, err)); // also keeps an error from crashing the process
      c.on("end", () => lost(self));
      c.on("notification", onNotification);
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
      if (stopped) {
        await c.end();
        return;
      }
      client = c;
      backoff = RECONNECT_MIN_MS;
      void poll(); // whatever was committed while nobody listened
    } catch (err) {
      c?.end().catch(() => {});
      if (stopped) return;
      o.log(`tsclaw: LISTEN on ${db.where} failed (${(err as Error).message}); retrying`);
      reconnectLater();
    }
  };

  const timer = setInterval(() => void poll(), o.pollMs);
  timer.unref();
  void connect();
  return () => {
    stopped = true;
    clearInterval(timer);
    if (retry) clearTimeout(retry);
    const c = client;
    client = undefined;
    c?.end().catch(() => {});
  };
}
