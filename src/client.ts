/**
 * tsclaw/client: the typed handles of createClaw() over a running server, for Node 20+ and
 * browsers. Imports no Node built-ins and no database.
 */
export type { BusEvent } from "./bus/bus-service.js";
export { type ConnectOptions, connectClaw, type RemoteClaw } from "./client/connect.js";
export type { FetchLike } from "./client/http-call.js";
export type { SocketLike, WebSocketCtor } from "./client/socket-channel.js";
export { ClawError, ERROR_TABLE, type ErrorCode, type WireError } from "./core/errors.js";
export type { BusEventStream, BusHandle, SubscribeArgs } from "./handles/bus-handle.js";
export type { ClawApi, TaskHandle } from "./handles/claw-api.js";
export type { CallOptions, OpInput, OpOutput } from "./handles/handle-types.js";
export type { SessionHandle, SessionsHandle } from "./handles/session-handle.js";
export type { TaskWatch, WatchArgs } from "./handles/task-watch.js";
export type { CatalogEntry } from "./ops/catalog.js";
export type { OpName } from "./ops/index.js";
export type { TaskEvent } from "./tasks/task-events.js";
export type { Task } from "./tasks/task-schema.js";
export { TASK_STATUSES } from "./tasks/task-statuses.js";
