/** A task's phase, shown as "waiting for approval" (linking to the inbox) while an approval holds it. */
import { href } from "../route.js";

/** The phase cell of a task. */
export function PhaseText({ phase, taskId }: { phase: string; taskId: string }) {
  if (phase !== "awaiting_approval") return <>{phase}</>;
  return (
    <a class="awaiting-approval" href={href("approvals", { taskId })}>
      waiting for approval
    </a>
  );
}
