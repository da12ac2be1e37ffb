/** The shape list_nodes reports for each node. */
import { z } from "zod";

/** One node of the database. */
export const nodeInfoSchema = z.object({
  node: z.string().describe("The node's id (server_identity's `node` on that process), new at every start"),
  url: z.string().nullable().describe("Where the node is served (its CLAW_URL), null when it is not served"),
  startedAt: z.number().describe("When the node started, epoch ms"),
  lastHeartbeat: z.number().describe("Its last heartbeat, epoch ms (renewed every third of its lease)"),
  alive: z
    .boolean()
    .describe("The last heartbeat is within the node's lease (--lease); false: it died or lost the database"),
});

/** One node of the database. */
export type NodeInfo = z.infer<typeof nodeInfoSchema>;
