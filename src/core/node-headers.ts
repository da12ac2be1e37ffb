/** Node's header records (`IncomingMessage.headers`, undici's `headers`) as a Fetch `Headers`. */

/** `raw` as `Headers`: a repeated header (an array) keeps each of its values. */
export function headersFrom(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}
