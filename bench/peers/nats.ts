/**
 * A NATS server with JetStream the bench starts itself (Debian's nats-server), storing streams
 * on files in a temporary directory.
 */
import { tempDir } from "../measure.js";
import { findBinary, freePort, startPeer } from "./peer-process.js";

/** A running nats-server. */
export interface RunningNats {
  url: string;
  stop(): Promise<void>;
}

/** Starts nats-server -js on a free loopback port; PeerMissing when it is not installed. */
export async function startNats(): Promise<RunningNats> {
  const bin = findBinary("nats-server", [
    "/usr/sbin/nats-server",
    "/usr/bin/nats-server",
    "/usr/local/bin/nats-server",
  ]);
  const tmp = tempDir("tsclaw-bench-nats-");
  const port = await freePort();
  const proc = await startPeer(
    "nats-server",
    bin,
    ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", tmp.dir],
    /Server is ready/,
  );
  return {
    url: `127.0.0.1:${port}`,
    stop: async () => {
      await proc.stop();
      tmp.remove();
    },
  };
}
