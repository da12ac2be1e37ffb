/** Task operations. */

/** Task operations. */
export const taskOps = [] as const;
