/** A JSON POST over a kept-alive node:http connection, as the wake-up rows' clients send it. */
import { Agent, request } from "node:http";

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** POSTs `body` as JSON to `url` with `token` as a bearer token; resolves with the status and text. */
export function postJson(url: string, body: unknown, token: string): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(data),
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}
