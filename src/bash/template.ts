/**
 * Event templates: any JSON value in which every string equal to "{payload}" becomes the value
 * itself, and "{payload}" inside a longer string becomes the value's text.
 */

const MARK = "{payload}";

/** Substitutes `value` into `template`, returning a new value (the template is not changed). */
export function fillTemplate(template: unknown, value: string | number | boolean): unknown {
  if (typeof template === "string") {
    if (template === MARK) return value;
    return template.includes(MARK) ? template.split(MARK).join(String(value)) : template;
  }
  if (Array.isArray(template)) return template.map((t) => fillTemplate(t, value));
  if (template !== null && typeof template === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) out[k] = fillTemplate(v, value);
    return out;
  }
  return template;
}

/**
 * Compiles a template into a fast serialiser for the hot path (one event per output line): the
 * JSON text is cut at each "{payload}" once, and each line only costs a string join.
 */
export function compileTemplate(template: unknown): (value: string | number | boolean) => string {
  const sentinel = "\u0000tsclaw-payload\u0000";
  const exactJson = JSON.stringify(sentinel);
  const json = JSON.stringify(fillTemplateWithSentinel(template, sentinel)) ?? "null";
  // Exact matches become the value's JSON; inside strings, the value's JSON-escaped text.
  const pieces: { text: string; exact: boolean }[] = [];
  let rest = json;
  const inner = sentinel.replace(/\u0000/g, "\\u0000");
  for (;;) {
    const iExact = rest.indexOf(exactJson);
    const iInner = rest.indexOf(inner);
    if (iExact < 0 && iInner < 0) break;
    if (iExact >= 0 && iExact <= iInner) {
      pieces.push({ text: rest.slice(0, iExact), exact: true });
      rest = rest.slice(iExact + exactJson.length);
    } else {
      pieces.push({ text: rest.slice(0, iInner), exact: false });
      rest = rest.slice(iInner + inner.length);
    }
  }
  if (pieces.length === 0) return () => json;
  return (value) => {
    const asJson = JSON.stringify(value);
    const asText = typeof value === "string" ? asJson.slice(1, -1) : String(value);
    let out = "";
    for (const p of pieces) out += p.text + (p.exact ? asJson : asText);
    return out + rest;
  };
}

function fillTemplateWithSentinel(template: unknown, sentinel: string): unknown {
  if (typeof template === "string") return template.split(MARK).join(sentinel);
  if (Array.isArray(template)) return template.map((t) => fillTemplateWithSentinel(t, sentinel));
  if (template !== null && typeof template === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) out[k] = fillTemplateWithSentinel(v, sentinel);
    return out;
  }
  return template;
}
