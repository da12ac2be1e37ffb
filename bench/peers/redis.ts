/**
 * A Redis server the bench starts itself (Debian's redis-server) in a temporary directory, with
 * AOF fsync every second (acknowledged writes survive a process crash, as tsclaw's WAL with
 * synchronous=NORMAL) and no RDB snapshots.
 */
import { tempDir } from "../measure.js";
import { findBinary, freePort, startPeer } from "./peer-process.js";

/** A running Redis. */
export interface RunningRedis {
  host: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts redis-server on a free loopback port; PeerMissing when it is not installed. */
export async function startRedis(): Promise<RunningRedis> {
  const bin = findBinary("redis-server", ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]);
  const tmp = tempDir("tsclaw-bench-redis-");
  const port = await freePort();
  const proc = await startPeer(
    "redis-server",
    bin,
    [
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--dir",
      tmp.dir,
      "--appendonly",
      "yes",
      "--appendfsync",
      "everysec",
      "--save",
      "",
      "--protected-mode",
      "no",
      "--daemonize",
      "no",
      "--loglevel",
      "notice",
    ],
    /Ready to accept connections/,
  );
  return {
    host: "127.0.0.1",
    port,
    stop: async () => {
      await proc.stop();
      tmp.remove();
    },
  };
}
