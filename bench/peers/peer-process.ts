/**
 * Starting and stopping a peer server (redis-server, nats-server, postgres) for one scenario:
 * find its binary, pick a free loopback port, spawn it, wait until it says it is ready, and stop
 * it (SIGTERM, then SIGKILL) when the scenario ends. A missing binary is a PeerMissing error, so
 * the scenario prints "peer not installed" and skips the row instead of inventing a number.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { freePort } from "../../test/helpers/pg-server.js";

export { freePort };

/** The peer's binary is not on this machine. */
export class PeerMissing extends Error {
  constructor(readonly peer: string) {
    super(`${peer}: peer not installed`);
  }
}

/**
 * The first of `candidates` that exists and is executable, else PeerMissing(`peer`). With
 * BENCH_NO_PEERS=1 (`npm run bench -- --no-peers`) every peer counts as missing.
 */
export function findBinary(peer: string, candidates: readonly string[]): string {
  if (process.env.BENCH_NO_PEERS === "1") throw new PeerMissing(peer);
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // try the next one
    }
  }
  throw new PeerMissing(peer);
}

/** A running peer process. */
export interface PeerProcess {
  child: ChildProcess;
  /** Stops the process and waits for it to exit. */
  stop(): Promise<void>;
}

/** Spawns `bin args` and resolves once a line of its output matches `ready` (or rejects on exit/timeout). */
export function startPeer(
  name: string,
  bin: string,
  args: readonly string[],
  ready: RegExp,
  timeoutMs = 30_000,
): Promise<PeerProcess> {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`${name} not ready after ${timeoutMs} ms: ${log.slice(-500)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      log += chunk.toString("utf8");
      if (ready.test(log)) {
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve({ child, stop: () => stopChild(child) });
      }
      if (log.length > 100_000) log = log.slice(-10_000);
    };
    const onExit = (code: number | null) => fail(new Error(`${name} exited with ${code}: ${log.slice(-500)}`));
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(err);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", onExit);
    child.once("error", (err) => fail(err));
  });
}

/** SIGTERM, then SIGKILL after 10 s; resolves when the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
