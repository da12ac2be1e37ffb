/**
 * Schema version 9: who resumed a decided approval's run. A run paused on an approval outlives
 * its process; once decided, exactly one node continues it: the one whose conditional UPDATE
 * sets `resumed_at` (its waiting run, or a node that resumes it from the stored history).
 * Owned by src/approvals.
 */

const steps = (time: string) => /* sql */ `
ALTER TABLE approvals ADD COLUMN resumed_at ${time};
ALTER TABLE approvals ADD COLUMN resumed_by TEXT;
`;

/** The SQLite step. */
export const approvalResumeSqlite = steps("INTEGER");

/** The PostgreSQL step. */
export const approvalResumePg = steps("BIGINT");
