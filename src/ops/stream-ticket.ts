/** The stream_ticket operation: a short-lived, single-use ticket for a GET stream. */
import { z } from "zod";
import { defineOp } from "./registry.js";

export const streamTicketOp = defineOp({
  name: "stream_ticket",
  group: "meta",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  summary:
    "Mint a single-use ticket, valid for about 60 s, that opens one GET stream (`/bus/<name>/events?ticket=…` or `/ws?ticket=…`) without putting the token in a URL.",
  notes:
    "For browsers, which cannot give EventSource or a WebSocket an `Authorization` header: call this with the token in the header, then open the stream with `?ticket=`. A ticket opens one stream (SSE or the WebSocket upgrade) and is gone, used or not, once tried; it never works on `/do` or `/mcp`. The stream it opened has the minter's rights and lives on after the ticket expires. Scoped tokens (a script's `CLAW_TOKEN`) cannot mint tickets.",
  input: z.object({}).strict(),
  output: z.object({
    ticket: z.string().describe("Pass as ?ticket= on one GET stream"),
    expiresAt: z.number().describe("Epoch ms after which the ticket is refused"),
    expiresInMs: z.number().int().describe("Its lifetime from now"),
  }),
  example: {},
  errors: ["too_many_requests"],
  handle: null,
  handler: (_args, { services }) => {
    const t = services.tickets.mint();
    return { ticket: t.ticket, expiresAt: t.expiresAt, expiresInMs: services.tickets.ttlMs };
  },
});
