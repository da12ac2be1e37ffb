/**
 * A run's context in memory: the session's history, loaded once when the run starts, and every
 * message the run adds after it. Each turn's Responses `input` is built from it without reading
 * storage again, and without converting the whole history again: the part before the newest
 * turn start (a user message or a summary) is converted once, since nothing the run adds can
 * change how those messages are replayed. Their request bytes are kept too, extended as the
 * settled part grows (request-body.ts), so a turn encodes only the items of its open turn.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { contextMessages, toInput } from "./history.js";
import { EncodedHistory, withEncodedPrefix } from "./request-body.js";
import type { Message } from "./session-schemas.js";

const startsTurn = (m: Message) => m.role === "user" || m.role === "summary";
/** A message's size as the context cache counts it: the length of its JSON. */
const charsOf = (m: Message) => JSON.stringify(m).length;

/** The messages the model sees next turn, kept as the run appends to them. */
export class RunContext {
  private settledInput: ResponseInputItem[] = [];
  /** The request bytes of the settled items. */
  private readonly encoded = new EncodedHistory();
  private open: Message[] = [];
  /** The seq of the newest message in the context (0 when empty). */
  lastSeq = 0;
  /** The size of the messages in the context, in characters of their JSON (what a cache of contexts bounds). */
  chars = 0;

  /**
   * @param history The session's stored messages, oldest first (the run's own first message included).
   * @param provider The session's provider: how function calls whose reasoning is left out replay (see toInput).
   */
  constructor(
    history: readonly Message[],
    readonly provider?: string,
  ) {
    this.lastSeq = history.at(-1)?.seq ?? 0;
    const live = contextMessages(history);
    for (const m of live) this.chars += charsOf(m);
    let cut = live.length;
    while (cut > 0 && !startsTurn(live[cut - 1]!)) cut--;
    // `cut` is one past the newest turn start: everything before that start is settled.
    const start = Math.max(0, cut - 1);
    this.settledInput = toInput(live.slice(0, start), this.provider);
    this.encoded.append(this.settledInput);
    this.open = live.slice(start);
  }

  /** Adds a message the run stored. A summary starts the context over, as it does when read from storage. */
  add(m: Message): void {
    if (m.seq > this.lastSeq) this.lastSeq = m.seq;
    const chars = charsOf(m);
    if (m.role === "summary") {
      this.settledInput = [];
      this.encoded.clear();
      this.open = [m];
      this.chars = chars;
      return;
    }
    this.chars += chars;
    if (startsTurn(m)) {
      // What came before a new turn start is replayed the same whatever follows it.
      const settled = toInput(this.open, this.provider);
      this.settledInput = this.settledInput.concat(settled);
      this.encoded.append(settled);
      this.open = [m];
      return;
    }
    this.open.push(m);
  }

  /** The next turn's input: the full context, replayed as toInput replays stored messages. */
  input(): ResponseInputItem[] {
    const input = this.settledInput.concat(toInput(this.open, this.provider));
    withEncodedPrefix(input, this.encoded);
    return input;
  }
}
