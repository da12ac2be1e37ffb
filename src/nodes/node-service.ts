/**
 * This process as a node of its database: a random id per start, a row in `nodes` written when
 * it starts, a heartbeat renewing it every third of the lease (so two heartbeats may be lost
 * before the lease lapses), and the row deleted on a clean close. Any node lists every node;
 * one whose last heartbeat is older than its own lease is not alive (it died, or lost the
 * database). Heartbeat times come from each node's clock: nodes on several machines need
 * synchronized clocks (NTP), as every lease-based system does.
 */
import { randomUUID } from "node:crypto";
import { checkLease } from "../config/lease.js";
import type { Sql } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";
import type { NodeInfo } from "./node-schema.js";

/** A node silent for this long is forgotten: its row is deleted when another node starts. */
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

/** What the node service needs from the claw. */
export interface NodeServiceOptions {
  sql: Sql;
  leaseMs: number;
  /** This node's URL as peers reach it (CLAW_URL of its bash), once it is served. */
  url: () => string | undefined;
  log: (line: string) => void;
  /** The clock. Default: Date.now */
  now?: () => number;
}

/** This process's node: its id, its heartbeat and the list of every node on the database. */
export class NodeService {
  /** This node's id: new at every start. */
  readonly id = randomUUID();
  readonly startedAt: number;
  readonly leaseMs: number;
  private readonly sql: Sql;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  private closed = false;
  private beating: Promise<void> = Promise.resolve();
  private readonly hooks: Array<() => Promise<void>> = [];

  constructor(private readonly options: NodeServiceOptions) {
    this.sql = options.sql;
    this.leaseMs = checkLease(options.leaseMs);
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  /** Writes this node's row, forgets long-dead nodes and starts the heartbeat. */
  async start(): Promise<void> {
    const first = this.beating.then(async () => {
      await this.sql.run("DELETE FROM nodes WHERE last_heartbeat < ?", [this.now() - FORGET_AFTER_MS]);
      await this.write();
    });
    this.beating = first.catch(() => {}); // list() and close() wait for it
    await first;
    if (this.closed) return;
    this.timer = setInterval(() => void this.beat(), Math.floor(this.leaseMs / 3));
    this.timer.unref();
  }

  /**
   * Runs `fn` after every heartbeat this node writes from then on, in the same turn of the
   * heartbeat (for leases this node holds elsewhere, renewed as often as the node's own). A
   * failure counts as a failed heartbeat: logged once until one succeeds again.
   */
  onHeartbeat(fn: () => Promise<void>): void {
    this.hooks.push(fn);
  }

  /** Renews the heartbeat now (also what records the URL once the node is served). Never throws. */
  beat(): Promise<void> {
    // Before start() the schema may not be there yet (start writes the first row itself).
    if (this.closed || !this.timer) return this.beating;
    // One write at a time: a slow database must not pile up heartbeats.
    this.beating = this.beating.then(async () => {
      try {
        await this.write();
        for (const hook of this.hooks) await hook();
        if (this.failing) this.options.log(`tsclaw: node ${this.id}: heartbeat written again`);
        this.failing = false;
      } catch (err) {
        if (!this.failing && !this.closed)
          this.options.log(`tsclaw: node ${this.id}: heartbeat failed: ${(err as Error).message}`);
        this.failing = true;
      }
    });
    return this.beating;
  }

  /** Every node of the database, oldest first; `alive` when its heartbeat is within its lease. */
  async list(): Promise<NodeInfo[]> {
    await this.beating; // a node always sees its own latest write
    const rows = await this.sql.all<Row<"nodes">>(
      "SELECT node, url, started_at, last_heartbeat, lease_ms FROM nodes ORDER BY started_at, node",
    );
    const now = this.now();
    return rows.map((r) => ({
      node: r.node,
      url: r.url,
      startedAt: r.started_at,
      lastHeartbeat: r.last_heartbeat,
      alive: now - r.last_heartbeat <= r.lease_ms,
    }));
  }

  /** Stops the heartbeat and deletes this node's row (a clean exit is not a lost node). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.beating;
    try {
      await this.sql.run("DELETE FROM nodes WHERE node = ?", [this.id]);
    } catch (err) {
      this.options.log(`tsclaw: node ${this.id}: could not remove its row: ${(err as Error).message}`);
    }
  }

  private async write(): Promise<void> {
    await this.sql.run(
      `INSERT INTO nodes (node, url, started_at, last_heartbeat, lease_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (node) DO UPDATE SET url = excluded.url, last_heartbeat = excluded.last_heartbeat, lease_ms = excluded.lease_ms`,
      [this.id, this.options.url() ?? null, this.startedAt, this.now(), this.leaseMs],
    );
  }
}
