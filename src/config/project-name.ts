/**
 * A project's name: what tasks, memory notes and schedules are filed under. Its length is
 * bounded because every task event carries it: a name near the bus's payload limit would make
 * each event of its tasks too large to publish.
 */
import { z } from "zod";
import { ClawError } from "../core/errors.js";

/** Longest project name: room for any directory's name (the default project), which is at most 255 bytes. */
export const MAX_PROJECT_CHARS = 256;

const tooLong = `a project name is at most ${MAX_PROJECT_CHARS} characters`;

/** A project name, in an operation's arguments (stored with what it files) and as createClaw's option. */
export const projectNameSchema = z.string().min(1, "a project name must not be empty").max(MAX_PROJECT_CHARS, tooLong);

/** Throws invalid_args when `name` (createClaw's `project`, or CLAW_PROJECT) is not a valid project name. */
export function checkProjectName(name: string): string {
  const parsed = projectNameSchema.safeParse(name);
  if (parsed.success) return name;
  const message = parsed.error.issues[0]!.message;
  throw new ClawError("invalid_args", `project: ${message} (got ${name.length})`, {
    option: "project",
    issues: [{ path: "project", message }],
  });
}
