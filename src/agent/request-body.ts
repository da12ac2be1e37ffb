/**
 * The body of a Responses request. A run replays the session's whole history every turn, and
 * the client would encode all of it again each time (JSON.stringify of the request, then its
 * UTF-8 bytes: ~3 ms a turn at 1 000 stored messages here). The run's context (run-context.ts)
 * keeps the JSON of the history's settled items in an `EncodedHistory`, extended as items
 * settle, and marks each input it hands out with it (`withEncodedPrefix`); the body encodes only
 * the open turn's items. A long history is kept as UTF-8 bytes, and a turn's body is then that
 * same buffer with the head written before the items and the open turn's items and the other
 * fields after them: nothing of the settled history is encoded, copied or allocated again (a
 * 350 KB text body cost the node ~0.3 ms a turn to flatten and encode). The body is exactly
 * (the UTF-8 of) what JSON.stringify of the same request gives.
 */
import type { ResponseInputItem } from "openai/resources/responses/responses";

/** Room kept beyond the largest head and tail seen (see `seen`). */
const SLACK = 512;
/**
 * The room a new history keeps before its items for the head (`{"model":…,"instructions":…,
 * "input":[`) and after them for a body's tail (the open turn's items, the tools and the other
 * fields): the largest of each seen in this process, and some slack. A context's first body then
 * finds its room already there (the instructions and tools are mostly the same from one run to
 * the next), and the context's buffer is allocated once.
 */
const seen = { head: 1024, tail: 4096 };
const EMPTY = Buffer.alloc(0);

/**
 * Below this many characters of settled items a history is kept as text and a body built as
 * text, as the client would. Small histories cost little to encode, and a buffer per context
 * kept across runs (malloc'd, freed only by a full collection) fragments the C heap: 10 000 run
 * tasks over 100 short sessions grew the RSS by ~55 MiB with buffers against ~33 with text.
 */
const BYTES_FROM = 64 * 1024;

/**
 * A history's settled items, encoded once: as text (the items' JSON joined with commas) while
 * short, then as request bytes in one buffer: [room for the head][the items' JSON, joined with
 * commas][the open part of the last body handed out]. A body handed out is a view of the buffer,
 * so the buffer is written again only once that body's request is known to be over
 * (`released`); until then the next write starts a fresh buffer and leaves the old one to the
 * request still holding it.
 */
export class EncodedHistory {
  /** The items' JSON while short; undefined once they are in `buf`. */
  private text: string | undefined = "";
  private buf = EMPTY;
  /** Where the items start (the head ends there). */
  private start = 0;
  /** Where the settled items end. */
  private end = 0;
  /** True while a body handed out may still be read. */
  private lent = false;
  private changes = 0;
  /** How many settled items. */
  count = 0;

  /** Changes with every change of the settled items: a mark made before it no longer applies. */
  get version(): number {
    return this.changes;
  }

  /** Appends `items` (settled from now on). */
  append(items: readonly ResponseInputItem[]): void {
    if (items.length === 0) return;
    this.changes++;
    this.count += items.length;
    const texts = items.map((item) => JSON.stringify(item));
    if (this.text === undefined) {
      this.unlend();
      this.store(texts);
      return;
    }
    const text = joinTexts(this.text, texts);
    if (text.length < BYTES_FROM) this.text = text;
    else {
      // Into the buffer, as one piece (its commas are in it).
      this.text = undefined;
      this.store([text]);
    }
  }

  /** Writes `texts` after the items in the buffer, with one allocation at most for all of them. */
  private store(texts: readonly string[]): void {
    let size = texts.length;
    for (const t of texts) size += Buffer.byteLength(t);
    this.room(Math.max(this.start, seen.head), size + seen.tail);
    for (const t of texts) this.end = this.put(this.end, this.end === this.start ? "" : ",", t);
  }

  /** Drops every item (a summary started the context over). */
  clear(): void {
    this.changes++;
    this.text = "";
    this.buf = EMPTY;
    this.start = this.end = 0;
    this.lent = false;
    this.count = 0;
  }

  /**
   * The request's body: `head` and the settled items, then `open` and `rest` (the other fields
   * in request order). Text while the items are short; else a view of the buffer: call
   * `released` once its request is over.
   */
  body(head: string, open: readonly ResponseInputItem[], rest: string): string | Buffer {
    const texts = open.map((item) => JSON.stringify(item));
    if (this.text !== undefined) return `${head}${joinTexts(this.text, texts)}],${rest}`;
    this.unlend();
    let after = 2 + Buffer.byteLength(rest) + texts.length;
    for (const t of texts) after += Buffer.byteLength(t);
    const headBytes = Buffer.byteLength(head);
    if (headBytes + SLACK > seen.head) seen.head = headBytes + SLACK;
    if (after + SLACK > seen.tail) seen.tail = after + SLACK;
    this.room(headBytes > this.start ? seen.head : this.start, after);
    const from = this.start - headBytes;
    this.buf.write(head, from, headBytes, "utf8");
    let at = this.end;
    for (const t of texts) at = this.put(at, at === this.start ? "" : ",", t);
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
    // Grown by half at least, so that a history growing turn by turn is copied O(log n) times.
    const size = start + Math.max(items + after, Math.floor((this.buf.length - this.start) * 1.5));
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

/** `texts` joined with commas, after `text` (the items before them, if any). */
function joinTexts(text: string, texts: readonly string[]): string {
  let joined = text;
  for (const t of texts) joined += joined === "" ? t : `,${t}`;
  return joined;
}

/** The encoded history an input's first items come from, and its version when they were marked. */
const encodedPrefixes = new WeakMap<readonly ResponseInputItem[], { history: EncodedHistory; version: number }>();

/**
 * Marks `input` as starting with `history`'s settled items, as they are now. The mark lives as
 * long as the array; its items must not change while it does.
 */
export function withEncodedPrefix(input: readonly ResponseInputItem[], history: EncodedHistory): void {
  encodedPrefixes.set(input, { history, version: history.version });
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
  if (mark && mark.version === mark.history.version) {
    const history = mark.history;
    return { body: history.body(headText, input.slice(history.count), restText), released: () => history.released() };
  }
  const items = input.map((item) => JSON.stringify(item)).join(",");
  return { body: `${headText}${items}],${restText}`, released: nothing };
}
