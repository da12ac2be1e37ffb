/**
 * Live schedule changes for the schedules views: a subscription to the `schedules` bus (firing
 * outcomes and schedule changes) that calls `onChange` at most once per frame, so a view reloads
 * what it shows when something happened, never on a timer.
 */
import { useEffect, useRef } from "preact/hooks";
import { useConnection } from "../connection.js";

/** Calls `onChange(scheduleIds)` after events of the `schedules` bus (all of them when `only` is not given). */
export function useScheduleEvents(onChange: (ids: Set<string>) => void, only?: string): void {
  const { claw } = useConnection();
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    let pending = new Set<string>();
    let frame = 0;
    let stop: (() => Promise<void>) | undefined;
    let closed = false;
    void claw.call("read", { bus: "schedules", limit: 1 }).then((r) => {
      if (closed) return;
      stop = claw.bus.subscribe({ bus: "schedules", after: r.lastSeq }, (e) => {
        const id = (e.payload as { scheduleId?: string })?.scheduleId;
        if (!id || (only && id !== only)) return;
        pending.add(id);
        if (frame) return;
        frame = requestAnimationFrame(() => {
          frame = 0;
          const ids = pending;
          pending = new Set();
          latest.current(ids);
        });
      });
    });
    return () => {
      closed = true;
      cancelAnimationFrame(frame);
      void stop?.();
    };
  }, [claw, only]);
}
