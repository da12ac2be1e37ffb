/** tsclaw: LLM agents whose only tool is bash, with durable tasks, sessions and an event bus in one SQLite file. */

export { keyVarOf as providerKeyVar } from "./agent/provider.js";
export type { Message, RunResult, Session, Usage } from "./agent/session-schemas.js";
export type { BusEvent, OutAck, RetentionOptions } from "./bus/bus-service.js";
export { type Claw, createClaw } from "./claw/claw.js";
export type { ClawLimits, ClawOptions } from "./config/claw-config.js";
export { ClawError, ERROR_TABLE, type ErrorCode, type WireError } from "./core/errors.js";
export { VERSION } from "./core/version.js";
export { encodeResponse, parseJson, type Request, type Response } from "./core/wire.js";
export type { CallContext } from "./dispatch/dispatch.js";
export type { BusEventStream, BusHandle, SubscribeArgs } from "./handles/bus-handle.js";
export type { ClawApi, TaskHandle } from "./handles/claw-api.js";
export type { CallOptions, OpInput, OpOutput } from "./handles/handle-types.js";
export type { SessionHandle, SessionsHandle } from "./handles/session-handle.js";
export type { TaskWatch, WatchArgs } from "./handles/task-watch.js";
export type { OpName } from "./ops/index.js";
export type { Connection, OpContext, OpDef, Transport } from "./ops/registry.js";
export { type TaskEvent, taskEventSchema } from "./tasks/task-events.js";
export type { Task } from "./tasks/task-schema.js";
export { TASKS_BUS } from "./tasks/tasks-bus.js";
