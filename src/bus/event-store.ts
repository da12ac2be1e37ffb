/**
 * The bus's view of its storage: the interface is the store's (src/store/event-store.ts), named
 * here too because the bus, its subscribers and the adapters speak of stored events.
 */
export {
  BUS_CACHE_LIMIT,
  type BusInfo,
  type EventStore,
  type PendingEvent,
  type RemoteCommit,
  type StoredEvent,
} from "../store/event-store.js";
