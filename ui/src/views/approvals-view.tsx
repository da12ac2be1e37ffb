/**
 * The approvals inbox: pending requests first (the command, its session and task, why it asks),
 * each with approve / deny and a note; then the decided ones. Refreshes on its own while open,
 * so a request the agent makes shows up without a reload.
 */
import { useEffect, useState } from "preact/hooks";
import type { OpOutput } from "../../../src/client.js";
import { useConnection } from "../connection.js";
import { ErrorNote } from "../parts/common.js";
import { href } from "../route.js";

type Approval = OpOutput<"approval_list">["approvals"][number];

const REFRESH_MS = 3000;

function Decide({ approval, onDecided }: { approval: Approval; onDecided: () => void }) {
  const { claw } = useConnection();
  const [note, setNote] = useState("");
  const [error, setError] = useState<unknown>();
  const decide = (decision: "approve" | "deny") =>
    claw
      .call("approval_decide", { approvalId: approval.approvalId, decision, ...(note.trim() ? { note } : {}) })
      .then(onDecided, setError);
  return (
    <div class="decide">
      <input
        name="note"
        placeholder="note (given to the model with a denial)"
        value={note}
        onInput={(e) => setNote((e.target as HTMLInputElement).value)}
      />{" "}
      <button type="button" data-action="approve" onClick={() => decide("approve")}>
        Approve
      </button>{" "}
      <button type="button" data-action="deny" onClick={() => decide("deny")}>
        Deny
      </button>
      <ErrorNote error={error} />
    </div>
  );
}

function Row({ a, onDecided }: { a: Approval; onDecided: () => void }) {
  return (
    <tr data-approval={a.approvalId} data-status={a.status}>
      <td>
        <pre class="script">{a.script}</pre>
        {a.cwd ? <small>in {a.cwd}</small> : null}
      </td>
      <td>
        <a href={href("session", a.sessionId)}>session</a>
        {a.taskId ? (
          <>
            {" · "}
            <a href={href("task", a.taskId)}>task</a>
          </>
        ) : null}
      </td>
      <td>{a.reason}</td>
      <td>{new Date(a.requestedAt).toLocaleString()}</td>
      <td>
        {a.status === "pending" ? (
          <Decide approval={a} onDecided={onDecided} />
        ) : (
          <span>
            {a.status} ({a.decidedBy}){a.note ? `: ${a.note}` : ""}
          </span>
        )}
      </td>
    </tr>
  );
}

/** The approvals view. */
export function ApprovalsView() {
  const { claw } = useConnection();
  const [pending, setPending] = useState<Approval[]>();
  const [decided, setDecided] = useState<Approval[]>();
  const [error, setError] = useState<unknown>();
  const [stamp, setStamp] = useState(0);
  useEffect(() => {
    claw.call("approval_list", { status: "pending", limit: 200 }).then((r) => setPending(r.approvals), setError);
    claw.call("approval_list", { status: "decided", limit: 50 }).then((r) => setDecided(r.approvals), setError);
    const timer = setTimeout(() => setStamp((s) => s + 1), REFRESH_MS);
    return () => clearTimeout(timer);
  }, [claw, stamp]);
  const refresh = () => setStamp((s) => s + 1);
  const rows = [...(pending ?? []).slice().reverse(), ...(decided ?? [])];
  return (
    <div>
      <h2>
        Approvals{pending && pending.length > 0 ? ` (${pending.length} pending)` : ""}{" "}
        <button type="button" onClick={refresh}>
          Refresh
        </button>
      </h2>
      <ErrorNote error={error} />
      <table class="list approvals">
        <thead>
          <tr>
            <th>command</th>
            <th>where</th>
            <th>reason</th>
            <th>requested</th>
            <th>decision</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <Row key={a.approvalId} a={a} onDecided={refresh} />
          ))}
        </tbody>
      </table>
      {pending && decided && rows.length === 0 ? <p class="empty">No approval requests.</p> : null}
    </div>
  );
}
