/**
 * Event templates: any JSON value in which every string equal to "{payload}" becomes the value
 * itself, and "{payload}" inside a longer string becomes the value's text. A compiled template
 * knows its size with an empty value and how many places the value goes, so the size of every
 * event is known before it is built: nothing a script prints can build an oversized string.
 */

const MARK = "{payload}";

/** Templates nested deeper than this are refused (a deep template is never a useful event). */
export const MAX_TEMPLATE_DEPTH = 64;

/** Substitutes `value` into `template`, returning a new value (the template is not changed). */
export function fillTemplate(template: unknown, value: string | number | boolean): unknown {
  return mapStrings(template, (text) => {
    if (text === MARK) return value;
    return text.includes(MARK) ? text.split(MARK).join(String(value)) : text;
  });
}

/** A copy of a JSON value with every string replaced by `f(string)`; keys and other values kept. */
function mapStrings(template: unknown, f: (text: string) => unknown): unknown {
  if (typeof template === "string") return f(template);
  if (Array.isArray(template)) return template.map((t) => mapStrings(t, f));
  if (template !== null && typeof template === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) out[k] = mapStrings(v, f);
    return out;
  }
  return template;
}

/** A template compiled for the hot path (one event per output line). */
export interface CompiledTemplate {
  /** The event's JSON text for `value`. */
  render(value: string | number | boolean): string;
  /** UTF-8 bytes of the event when the value is the empty string. */
  readonly emptyBytes: number;
  /** How many places the value goes (whole strings and inside strings). */
  readonly slots: number;
}

/**
 * Compiles a template: its JSON text is cut at each "{payload}" once, and each value then only
 * costs a string join. Exact matches become the value's JSON; inside strings, its escaped text.
 */
export function compileTemplate(template: unknown): CompiledTemplate {
  const sentinel = "\u0000tsclaw-payload\u0000";
  const exactJson = JSON.stringify(sentinel);
  const json = JSON.stringify(mapStrings(template, (text) => text.split(MARK).join(sentinel))) ?? "null";
  const texts: string[] = [];
  const exact: boolean[] = [];
  let rest = json;
  const inner = sentinel.replace(/\u0000/g, "\\u0000");
  for (;;) {
    const iExact = rest.indexOf(exactJson);
    const iInner = rest.indexOf(inner);
    if (iExact < 0 && iInner < 0) break;
    if (iExact >= 0 && (iInner < 0 || iExact <= iInner)) {
      texts.push(rest.slice(0, iExact));
      exact.push(true);
      rest = rest.slice(iExact + exactJson.length);
    } else {
      texts.push(rest.slice(0, iInner));
      exact.push(false);
      rest = rest.slice(iInner + inner.length);
    }
  }
  const n = texts.length;
  const head = texts[0] ?? "";
  const render =
    n === 0
      ? () => json
      : n === 1 && exact[0]
        ? // The usual template ({"line": "{payload}"}), once per output line: one escape, one join.
          (value: string | number | boolean) => head + JSON.stringify(value) + rest
        : (value: string | number | boolean) => {
            const asJson = JSON.stringify(value);
            const asText = typeof value === "string" ? asJson.slice(1, -1) : String(value);
            let out = "";
            for (let i = 0; i < n; i++) out += texts[i]! + (exact[i] ? asJson : asText);
            return out + rest;
          };
  return { render, emptyBytes: Buffer.byteLength(render("")), slots: n };
}

/** UTF-8 bytes of `text` once JSON-escaped (without the quotes). */
export function escapedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/**
 * The longest prefix of `text` whose JSON-escaped form takes at most `maxBytes` UTF-8 bytes.
 * Never splits a surrogate pair.
 */
export function cutToEscapedBytes(text: string, maxBytes: number): string {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let cost: number;
    let width = 1;
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) cost = 2;
    else if (c < 0x20) cost = 6;
    else if (c < 0x80) cost = 1;
    else if (c < 0x800) cost = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cost = 4;
        width = 2;
      } else cost = 6; // a lone surrogate is escaped as \udxxx
    } else if (c >= 0xd800 && c <= 0xdfff) cost = 6;
    else cost = 3;
    if (used + cost > maxBytes) break;
    used += cost;
    i += width;
  }
  return text.slice(0, i);
}
