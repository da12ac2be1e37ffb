/**
 * Buses: every bus with its first and last seq and its event count; each opens its tail. The
 * list stays current by itself (task changes and a reload every few seconds).
 */
import { useEffect, useState } from "preact/hooks";
import type { OpOutput } from "../../../src/client.js";
import { useConnection } from "../connection.js";
import { ErrorNote } from "../parts/common.js";
import { useLiveReload } from "../parts/use-live-reload.js";
import { href } from "../route.js";

type BusInfo = OpOutput<"list_buses">["buses"][number];

/** The buses view. */
export function BusesView() {
  const { claw } = useConnection();
  const [buses, setBuses] = useState<BusInfo[]>();
  const [error, setError] = useState<unknown>();
  const [stamp, setStamp] = useState(0);
  const load = () => claw.call("list_buses", {}).then((r) => setBuses(r.buses), setError);
  useEffect(() => void load(), [claw, stamp]);
  useLiveReload(load);
  return (
    <div>
      <h2>
        Buses{" "}
        <button type="button" onClick={() => setStamp(stamp + 1)}>
          Refresh
        </button>
      </h2>
      <ErrorNote error={error} />
      <table class="list buses">
        <thead>
          <tr>
            <th>bus</th>
            <th>events</th>
            <th>first seq</th>
            <th>last seq</th>
          </tr>
        </thead>
        <tbody>
          {(buses ?? []).map((b) => (
            <tr key={b.bus} data-bus={b.bus}>
              <td>
                <a href={href("bus", b.bus)}>{b.bus}</a>
              </td>
              <td class="num" data-field="count">
                {b.count}
              </td>
              <td class="num">{b.firstSeq}</td>
              <td class="num">{b.lastSeq}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {buses && buses.length === 0 ? <p class="empty">No bus has events yet.</p> : null}
    </div>
  );
}
