/** Session operations. */

/** Session operations. */
export const sessionOps = [] as const;
