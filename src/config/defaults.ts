/** Every default value of tsclaw, written once: the config table, createClaw and the services read them from here. */

const MiB = 1024 * 1024;

/** Default values. Each is documented where it is used (the config table and ClawOptions). */
export const DEFAULTS = {
  db: "./claw.db",
  bus: "thebus",
  listen: ":8000",
  url: "http://127.0.0.1:8000",
  name: "tsclaw",
  durability: "normal",
  sandbox: "auto",
  provider: "openrouter",
  /** Each provider's default model, used when no model is given. */
  providerModels: { openrouter: "openai/gpt-5:online", openai: "gpt-5", demo: "demo" } as Record<string, string>,
  maxPayloadBytes: MiB,
  maxBashProcesses: 32,
  bashOutputBytes: MiB,
  bashKillGraceMs: 1000,
  maxEventsPerCall: 100_000,
  maxRequestBytes: 10 * MiB,
  maxSubscriptions: 64,
  maxConnections: 10_000,
  maxConnectionsPerPeer: 256,
  headerTimeoutMs: 10_000,
  idleTimeoutMs: 65_000,
  maxCallsPerConnection: 1024,
  maxSchedules: 10_000,
  scheduleHistory: 1000,
  maxTurns: 100,
  /** A node heartbeats every third of its lease; silent for longer, it is not alive. */
  leaseMs: 15_000,
  /** SSE: comment-line heartbeat interval, and the `retry:` a dropped EventSource waits. */
  sseHeartbeatMs: 15_000,
  sseRetryMs: 2000,
  modelRetry: { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 30_000 },
} as const;

/** A byte count as people read it ("1 MiB", "10 MiB", "512 KiB", "100 bytes"). */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
