/** Every registered operation, in catalog order. Adding an operation: define it in its group file and list it there. */
import { approvalOps } from "./approval.js";
import { bashOps } from "./bash.js";
import { busOps } from "./bus.js";
import { continuityOps } from "./continuity.js";
import { metaOps } from "./meta.js";
import { nodeOps } from "./nodes.js";
import { scheduleOps } from "./schedule.js";
import { sessionOps } from "./session.js";
import { taskOps } from "./task.js";

/** The registry. */
export const OPS = [
  ...busOps,
  ...bashOps,
  ...sessionOps,
  ...taskOps,
  ...approvalOps,
  ...scheduleOps,
  ...continuityOps,
  ...nodeOps,
  ...metaOps,
] as const;

/** Any registered operation. */
export type RegisteredOp = (typeof OPS)[number];

/** Names of registered operations. */
export type OpName = RegisteredOp["name"];
