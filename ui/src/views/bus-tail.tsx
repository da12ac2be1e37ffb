/**
 * A bus from a chosen seq: pages of 200 events read with `read` until the newest, then a live
 * subscription; pause stops it, resume reads what came meanwhile and goes live again. At most
 * 1 000 events are held (older ones leave the top), so a bus of any size never loads whole.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { OpOutput } from "../../../src/client.js";
import { useConnection } from "../connection.js";
import { clock, pretty, preview } from "../format.js";
import { ErrorNote } from "../parts/common.js";
import { href } from "../route.js";

type BusEvent = OpOutput<"read">["events"][number];
type Mode = "loading" | "behind" | "live" | "paused";

const PAGE = 200;
const KEEP = 1000;
const NEWEST = 50;

function EventRow({ e }: { e: BusEvent }) {
  const [open, setOpen] = useState(false);
  return (
    <li data-seq={e.seq} class={open ? "open" : ""}>
      <button type="button" class="link" onClick={() => setOpen(!open)} title={clock(e.ts)}>
        <span class="seq">#{e.seq}</span> <span class="when">{new Date(e.ts).toLocaleTimeString()}</span>{" "}
        <span class="payload">{preview(e.payload)}</span>
      </button>
      {open ? <pre class="json">{pretty(e.payload)}</pre> : null}
    </li>
  );
}

/** The bus tail. `from`: the seq to start after (default: the newest 50 events). */
export function BusTail({ bus, from }: { bus: string; from: string | null }) {
  const { claw } = useConnection();
  const [events, setEvents] = useState<BusEvent[]>([]);
  const [mode, setMode] = useState<Mode>("loading");
  const [lastSeq, setLastSeq] = useState(0);
  const [error, setError] = useState<unknown>();
  const cursor = useRef(0);
  const stop = useRef<(() => Promise<void>) | undefined>(undefined);
  const pending = useRef<BusEvent[]>([]);
  const alive = useRef(true);

  const append = (batch: BusEvent[]) => setEvents((es) => [...es, ...batch].slice(-KEEP));
  const goLive = () => {
    stop.current = claw.bus.subscribe({ bus, after: cursor.current }, (e) => {
      cursor.current = e.seq;
      pending.current.push(e);
      if (pending.current.length > 1) return;
      // One render per frame however fast the bus runs.
      requestAnimationFrame(() => {
        const batch = pending.current;
        pending.current = [];
        if (!alive.current) return;
        append(batch);
        setLastSeq((s) => Math.max(s, batch.at(-1)!.seq));
      });
    });
    setMode("live");
  };
  const readPage = async () => {
    setMode("loading");
    const r = await claw.call("read", { bus, after: cursor.current, limit: PAGE });
    if (!alive.current) return;
    append(r.events);
    cursor.current = r.next;
    setLastSeq(r.lastSeq);
    if (r.next >= r.lastSeq) goLive();
    else setMode("behind");
  };
  const pause = async () => {
    const s = stop.current;
    stop.current = undefined;
    setMode("paused");
    await s?.();
  };

  useEffect(() => {
    alive.current = true;
    setEvents([]);
    setError(undefined);
    (async () => {
      const start = from !== null && from !== "" ? Number(from) : undefined;
      if (start === undefined || !Number.isFinite(start)) {
        const head = await claw.call("read", { bus, after: 0, limit: 1 });
        cursor.current = Math.max(head.events[0] ? head.events[0].seq - 1 : 0, head.lastSeq - NEWEST);
      } else cursor.current = Math.max(0, Math.floor(start));
      await readPage();
    })().catch(setError);
    return () => {
      alive.current = false;
      void stop.current?.();
      stop.current = undefined;
    };
  }, [claw, bus, from]);

  const jump = (form: HTMLFormElement) => {
    const v = String(new FormData(form).get("from") ?? "").trim();
    location.hash = href("bus", bus, { from: v });
  };
  const first = events[0]?.seq;
  return (
    <div class="bus-tail" data-bus={bus}>
      <p>
        <a href={href("buses")}>← buses</a>
      </p>
      <h2>
        Bus <code>{bus}</code>
      </h2>
      <div class="toolbar">
        <span data-field="mode" class={`badge m-${mode}`}>
          {mode}
        </span>
        <span class="sub">
          showing {events.length ? `#${first}–#${events.at(-1)!.seq}` : "nothing yet"} · newest #{lastSeq}
        </span>
        {mode === "live" ? (
          <button type="button" onClick={() => pause().catch(setError)}>
            Pause
          </button>
        ) : null}
        {mode === "paused" ? (
          <button type="button" onClick={() => readPage().catch(setError)}>
            Resume
          </button>
        ) : null}
        {mode === "behind" ? (
          <>
            <button type="button" onClick={() => readPage().catch(setError)}>
              Next {PAGE}
            </button>
            <a href={href("bus", bus, { from: String(Math.max(0, lastSeq - NEWEST)) })}>Jump to newest</a>
          </>
        ) : null}
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            jump(e.currentTarget);
          }}
        >
          <label>
            from seq <input name="from" type="number" min={0} value={from ?? ""} />
          </label>{" "}
          <button type="submit">Go</button>
        </form>
      </div>
      <ErrorNote error={error} />
      {first !== undefined && first > 1 ? (
        <a class="sub" href={href("bus", bus, { from: String(Math.max(0, first - 1 - PAGE)) })}>
          Earlier events
        </a>
      ) : null}
      <ol class="events">
        {events.map((e) => (
          <EventRow key={e.seq} e={e} />
        ))}
      </ol>
    </div>
  );
}
