/**
 * The body of a Responses request. A run replays the session's whole history every turn, and
 * the client would encode all of it again each time (JSON.stringify of the request, then its
 * UTF-8 bytes: ~3 ms a turn at 1 000 stored messages here). The run's context (run-context.ts)
 * keeps the UTF-8 JSON of the history's settled items in an `EncodedHistory`, extended as items
 * settle, and marks each input it hands out with it (`withEncodedPrefix`). A turn's body is then
 * that same buffer with the head written before the items and the open turn's items and the
 * other fields after them: nothing of the settled history is encoded, copied or allocated again.
 * The bytes are exactly the UTF-8 of what JSON.stringify of the same request gives.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";

/** Room kept before the items for the head (`{"model":…,"instructions":…,"input":[`) beyond the first head's size. */
const HEAD_SLACK = 256;

/**
 * A history's settled items as request bytes, in one buffer: [room for the head][the items'
 * JSON, joined with commas][the open part of the last body handed out]. A body handed out is a
 * view of the buffer, so the buffer is written again only once that body's request is known to
 * be over (`released`); until then the next write starts a fresh buffer and leaves the old one
 * to the request still holding it.
 */
export class EncodedHistory {
  private buf = Buffer.alloc(0);
  /** Where the items start (the head ends there). */
  private start = 0;
  /** Where the settled items end. */
  private end = 0;
  /** True while a body handed out may still be read. */
  private lent = false;
  /** Changes with every change of the settled items: a mark made before it no longer applies. */
  private version = 0;
  /** How many settled items. */
  count = 0;

  /** Appends `items` (settled from now on). */
  append(items: readonly ResponseInputItem[]): void {
    if (items.length === 0) return;
    this.unlend();
    for (const item of items) {
      const text = JSON.stringify(item);
      const sep = this.count++ === 0 ? "" : ",";
      this.room(this.start, sep.length + Buffer.byteLength(text));
      this.end = this.put(this.end, sep, text);
    }
    this.version++;
  }

  /** Drops every item (a summary started the context over). */
  clear(): void {
    this.unlend();
    this.end = this.start;
    this.count = 0;
    this.version++;
  }

  /** A stamp of the current items for `withEncodedPrefix`. */
  stamp(): number {
    return this.version;
  }

  /** True when `stamp` (from `stamp()`) still describes the items. */
  holds(stamp: number): boolean {
    return stamp === this.version;
  }

  /**
   * The request's bytes: `head` and the settled items, then `open` and `rest` (the other fields
   * in request order). A view of the buffer: call `released` once its request is over.
   */
  body(head: string, open: readonly ResponseInputItem[], rest: string): Buffer {
    this.unlend();
    const texts = open.map((item) => JSON.stringify(item));
    let after = 2 + Buffer.byteLength(rest) + texts.length;
    for (const t of texts) after += Buffer.byteLength(t);
    const headBytes = Buffer.byteLength(head);
    this.room(headBytes > this.start ? headBytes + HEAD_SLACK : this.start, after);
    const from = this.start - headBytes;
    this.buf.write(head, from, headBytes, "utf8");
    let at = this.end;
    let first = this.count === 0;
    for (const t of texts) {
      at = this.put(at, first ? "" : ",", t);
      first = false;
    }
    at = this.put(at, "],", rest);
    this.lent = true;
    return this.buf.subarray(from, at);
  }

  /** The last body's request is over: its bytes may be written again. */
  released(): void {
    this.lent = false;
  }

  /** Writes `sep` and `text` at `at` (the room is there); returns where they end. */
  private put(at: number, sep: string, text: string): number {
    if (sep !== "") at += this.buf.write(sep, at, "latin1");
    return at + this.buf.write(text, at, "utf8");
  }

  /**
   * Makes room for a head of up to `start` bytes before the items and `after` bytes after them:
   * a fresh buffer, the settled items copied over, when this one lacks either.
   */
  private room(start: number, after: number): void {
    if (start !== this.start || this.end + after > this.buf.length) this.regrow(start, after);
  }

  /** A fresh buffer with `start` bytes before the items and room for `after` bytes after them. */
  private regrow(start: number, after: number): void {
    const items = this.end - this.start;
    const size = start + Math.max(items + after, Math.floor(this.buf.length * 1.5)) + 1024;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, start, this.start, this.end);
    this.buf = next;
    this.start = start;
    this.end = start + items;
    this.lent = false;
  }

  /** A body handed out may still be read: later writes go to a fresh buffer. */
  private unlend(): void {
    if (this.lent) this.regrow(this.start, 0);
  }
}

/** The encoded history an input's first items come from, and the stamp they were marked at. */
const encodedPrefixes = new WeakMap<readonly ResponseInputItem[], { history: EncodedHistory; stamp: number }>();

/**
 * Marks `input` as starting with `history`'s settled items, as they are now. The mark lives as
 * long as the array; its items must not change while it does.
 */
export function withEncodedPrefix(input: readonly ResponseInputItem[], history: EncodedHistory): void {
  encodedPrefixes.set(input, { history, stamp: history.stamp() });
}

/** A request's body, and what to call once its request is over. */
export interface RequestBody {
  body: string | Buffer;
  /** The request is over (its answer read to the end): the body's bytes may be written again. */
  released(): void;
}

const nothing = () => {};

/**
 * `JSON.stringify({ model, instructions, input, ...rest })` as the request's body: as bytes
 * after the settled history `input` was marked with (while that history still holds what it
 * held then), else as text. `rest` holds the other fields in request order (never empty: the
 * tools are always sent).
 */
export function requestBody(
  head: { model: string; instructions: string },
  input: readonly ResponseInputItem[],
  rest: Record<string, unknown>,
): RequestBody {
  const headText = `{"model":${JSON.stringify(head.model)},"instructions":${JSON.stringify(head.instructions)},"input":[`;
  const restText = JSON.stringify(rest).slice(1);
  const mark = encodedPrefixes.get(input);
  if (mark?.history.holds(mark.stamp)) {
    const history = mark.history;
    return { body: history.body(headText, input.slice(history.count), restText), released: () => history.released() };
  }
  const items = input.map((item) => JSON.stringify(item)).join(",");
  return { body: `${headText}${items}],${restText}`, released: nothing };
}
