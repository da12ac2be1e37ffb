/**
 * Raw TCP clients for tests of what a hostile peer can send: bytes that are not valid HTTP,
 * connections that never send a byte, headers sent one byte at a time.
 */
import { connect, type Socket } from "node:net";

/** A connection whose bytes from the server are collected. */
export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far, as latin1 text. */
  received(): string;
  /** Resolves when the connection is closed (by either side). */
  closed: Promise<void>;
}

/** Opens a TCP connection to 127.0.0.1:`port` (from `localAddress` when given); sends nothing. */
export function openRaw(port: number, localAddress?: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => (text += c));
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    socket.once("connect", () => {
      socket.off("error", reject);
      socket.on("error", () => {}); // a reset is one way for the server to close
      resolve({ socket, received: () => text, closed });
    });
    socket.once("error", reject);
  });
}

/** Sends `bytes`, half-closes, and resolves with what came back once the server closed. */
export async function exchange(port: number, bytes: string | Buffer, localAddress?: string): Promise<string> {
  const c = await openRaw(port, localAddress);
  c.socket.end(bytes);
  await c.closed;
  return c.received();
}

/** The status code of a raw HTTP response text, or undefined when there was none. */
export function statusOf(response: string): number | undefined {
  const m = /^HTTP\/1\.[01] (\d{3}) /.exec(response);
  return m ? Number(m[1]) : undefined;
}

/** The body of a raw HTTP response text (after the blank line). */
export function bodyOf(response: string): string {
  const i = response.indexOf("\r\n\r\n");
  return i < 0 ? "" : response.slice(i + 4);
}

/** Open descriptors of process `pid`. */
export async function fdCount(pid: number): Promise<number> {
  const { readdirSync } = await import("node:fs");
  return readdirSync(`/proc/${pid}/fd`).length;
}
