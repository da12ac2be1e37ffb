/** The task statuses, in a file of their own so the browser bundle can import them without zod. */

/** Every task status. Clients switch on these names, so renaming one is a breaking change. */
export const TASK_STATUSES = [
  "todo",
  "in_progress",
  "blocked",
  "needs_human",
  "completed",
  "completed_no_summary",
  "error",
  "cancelled",
  "done",
] as const;
