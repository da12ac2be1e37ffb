/** Node operations: the processes serving this database. */
import { z } from "zod";
import { nodeInfoSchema } from "../nodes/node-schema.js";
import { defineOp } from "./registry.js";

export const listNodesOp = defineOp({
  name: "list_nodes",
  group: "continuity",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary:
    "The nodes (tsclaw processes) on this database: id, URL, start time, last heartbeat and whether each is alive.",
  notes:
    "A node heartbeats every third of its lease (`--lease`, default 15s); one whose last heartbeat is older than its lease is `alive: false` (it died or lost the database), and a node that stops cleanly removes itself. server_identity's `node` names the node that answers.",
  input: z.object({}).strict(),
  output: z.object({ nodes: z.array(nodeInfoSchema).describe("Oldest first") }),
  example: {},
  handle: "continuity.nodes",
  handler: async (_args, { services }) => ({ nodes: await services.nodes.list() }),
});

/** Node operations. */
export const nodeOps = [listNodesOp] as const;
