/** Shared setup of the task tests: a fake model, claws pointed at it, gates and small waits. */
import type { Claw, ClawOptions } from "../../src/index.js";
import type { Sql } from "../../src/store/sql.js";
import { answer, type FakeResponses, type FakeTurn, startFakeResponses } from "../fixtures/fake-responses.js";
import { apiClaw } from "../helpers/claw.js";
import { pidFromFile } from "../helpers/process.js";

/** A claw on ":memory:" whose model calls go to `fake`, with fast retries. */
export function taskClaw(fake: FakeResponses, options: ClawOptions = {}): Promise<Claw> {
  return apiClaw({ baseURL: fake.url, modelRetry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 50 }, ...options });
}

/** A model turn that waits for `open()` before answering: keeps a task in_progress as long as a test needs. */
export interface Gate {
  turn: FakeTurn;
  /** Lets the turn answer with `text`. */
  open(text?: string): void;
  /** Resolves when the model request of this turn arrived. */
  reached: Promise<void>;
}

/** Creates a gated model turn. */
export function gate(defaultText = "gated answer"): Gate {
  let release!: (text: string) => void;
  let arrived!: () => void;
  const released = new Promise<string>((r) => (release = r));
  const reached = new Promise<void>((r) => (arrived = r));
  return {
    turn: async () => {
      arrived();
      return answer(await released);
    },
    open: (text = defaultText) => release(text),
    reached,
  };
}

/** Reads a pid written by a script, once the file exists. */
export const readPid = (path: string): Promise<number> => pidFromFile(path);

/** A fake model server plus cleanup of everything registered with `track`. */
export async function fixture() {
  const fake = await startFakeResponses();
  const cleanups: (() => unknown)[] = [];
  return {
    fake,
    /** Registers a cleanup (run in reverse order by `close`). */
    track<T>(thing: T, cleanup: (t: T) => unknown): T {
      cleanups.push(() => cleanup(thing));
      return thing;
    },
    async close() {
      for (const c of cleanups.reverse()) await c();
      await fake.close();
    },
  };
}

/** A valid completion of a task at `version`: status done with the handoff and receipt fields it requires. */
export function completion(
  claw: Claw,
  task: { taskId: string; version: number; project: string },
  sessionRef = "worker-1/run-1",
) {
  return {
    taskId: task.taskId,
    expectedVersion: task.version,
    status: "done" as const,
    handoff: { completed: "wrote the notes", next: "review them", blockers: "" },
    receipt: {
      sessionRef,
      worker: "test worker",
      work: "wrote docs/NOTES.md",
      next: "review",
      blockers: "",
      tests: "npm test: ok",
      gitCheckpoint: "abc1234",
    },
    writeContext: { instance: claw.identity.instance, project: task.project },
  };
}

/** Makes every receipt insert fail (a trigger, in the store's own dialect); returns its removal. */
export async function failReceiptInserts(sql: Sql): Promise<() => Promise<void>> {
  if (sql.dialect === "sqlite") {
    await sql.run(
      "CREATE TRIGGER fail_receipts BEFORE INSERT ON receipts BEGIN SELECT RAISE(ABORT, 'disk said no'); END",
    );
    return async () => void (await sql.run("DROP TRIGGER fail_receipts"));
  }
  await sql.run(
    "CREATE FUNCTION fail_receipts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk said no'; END $$",
  );
  await sql.run("CREATE TRIGGER fail_receipts BEFORE INSERT ON receipts FOR EACH ROW EXECUTE FUNCTION fail_receipts()");
  return async () => {
    await sql.run("DROP TRIGGER fail_receipts ON receipts");
    await sql.run("DROP FUNCTION fail_receipts()");
  };
}
