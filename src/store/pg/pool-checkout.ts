/**
 * A pooled connection checked out for a transaction. While a connection is checked out the pool
 * stops listening for its errors, so one the server ends between two statements (a restart, an
 * administrator's pg_terminate_backend, a network cut) would emit an error nobody handles and
 * crash the process. This listens for as long as the connection is out: the transaction's next
 * statement fails as it would on any dead connection, and the connection is discarded on release.
 */
import type { Pool, PoolClient } from "pg";

/** A checked-out connection and its release (which discards it when it broke). */
export interface CheckedOut {
  client: PoolClient;
  release(broken?: Error): void;
}

/** Checks a connection out of `pool`, listening for its errors until it is released. */
export async function checkout(pool: Pool): Promise<CheckedOut> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost ??= err;
  };
  client.on("error", onError);
  return {
    client,
    release(broken) {
      client.removeListener("error", onError);
      client.release(broken ?? lost);
    },
  };
}
