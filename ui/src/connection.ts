/**
 * The page's one connection to its server, through the public client: every view reads and acts
 * with operations, and task changes come from one subscription to the `tasks` bus that every
 * view listening for tasks shares (no polling).
 */
import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { connectClaw, type OpOutput, type RemoteClaw, type TaskEvent } from "../../src/client.js";

/** What the page knows about its server. */
export interface Connection {
  claw: RemoteClaw;
  identity: OpOutput<"server_identity">;
  tasks: TaskFeed;
}

/** Fans the `tasks` bus out to the views. */
export class TaskFeed {
  private readonly listeners = new Set<(events: TaskEvent[]) => void>();
  private batch: TaskEvent[] = [];
  private scheduled = false;

  /** Called by the subscription for each event; views get them in batches, once per frame. */
  push(event: TaskEvent): void {
    this.batch.push(event);
    if (this.scheduled) return;
    this.scheduled = true;
    // A burst of thousands of changes becomes one render, not thousands.
    requestAnimationFrame(() => {
      this.scheduled = false;
      const events = this.batch;
      this.batch = [];
      for (const l of this.listeners) l(events);
    });
  }

  /** Listens until the returned function is called. */
  listen(listener: (events: TaskEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Connects with `token`; rejects with the client's ClawError (e.g. `unauthorized`). */
export async function openConnection(token: string): Promise<Connection & { close(): Promise<void> }> {
  const claw = await connectClaw({ url: location.origin, token });
  try {
    const identity = await claw.call("server_identity", {});
    const tasks = new TaskFeed();
    // From now on: the views load their state after this, and drop events older than what they read.
    const stop = claw.bus.subscribe({ bus: "tasks" }, (e) => {
      const p = e.payload as TaskEvent;
      if (p && p.type === "task") tasks.push(p);
    });
    return {
      claw,
      identity,
      tasks,
      close: async () => {
        await stop();
        await claw.close();
      },
    };
  } catch (err) {
    await claw.close();
    throw err;
  }
}

/** The connection of the page (set by the app once connected). */
export const ConnectionContext = createContext<Connection | null>(null);

/** The connection; views render only inside a connected app. */
export function useConnection(): Connection {
  const c = useContext(ConnectionContext);
  if (!c) throw new Error("useConnection outside a connected app");
  return c;
}

/** Task events for as long as the component is mounted. */
export function useTaskEvents(listener: (events: TaskEvent[]) => void, deps: unknown[]): void {
  const { tasks } = useConnection();
  useEffect(() => tasks.listen(listener), [tasks, ...deps]);
}

/** The current time, re-read every `everyMs` (elapsed times and ages keep ticking). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
