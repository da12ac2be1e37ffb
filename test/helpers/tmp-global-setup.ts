/**
 * Global setup of every vitest project: the run's temporary files go in a directory of its own
 * (TMPDIR, which the workers inherit and os.tmpdir() reads), removed when the run ends. vitest
 * ends its worker processes with a signal, so what a worker made would otherwise stay in /tmp
 * run after run.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  // Each project runs the setup; the first one's directory serves the whole run.
  if (process.env.TSCLAW_TEST_TMPDIR) return () => {};
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), "tsclaw-run-"));
  // Open to every user, as /tmp is: the tests' PostgreSQL runs as the postgres user.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  process.env.TSCLAW_TEST_TMPDIR = dir;
  return () => {
    delete process.env.TSCLAW_TEST_TMPDIR;
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
