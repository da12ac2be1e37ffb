/**
 * findMarked, the scan that finds a bash call's processes by their marker variable: bounded by
 * the call's first PID it reads only the PIDs assigned since (one by one when they are few), and
 * a thread's id, which /proc also answers for with its process's environment, is never reported
 * as a process of its own.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { afterEach, expect, it, vi } from "vitest";
import { findMarked, MARKER_VAR, markerEntry } from "../../src/bash/process-scan.js";
import { WAIT } from "../helpers/wait.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

function marked(value: string, command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { env: { ...process.env, [MARKER_VAR]: value }, stdio: "ignore" });
  children.push(child);
  return child;
}

it("finds a marked process with threads once, by its PID, bounded or not; an unmarked one never", async () => {
  const value = `scan-test:${process.pid}.${Date.now()}`;
  const needle = markerEntry(value);
  // node runs several threads from its start: their ids come right after its PID.
  const child = marked(value, process.execPath, ["-e", "setInterval(() => {}, 1000)"]);
  const pid = child.pid!;
  await vi.waitFor(() => expect(readdirSync(`/proc/${pid}/task`).length).toBeGreaterThan(1), WAIT);
  const other = marked(`${value}-other`, "sleep", ["30"]);
  expect(findMarked(needle, pid)).toEqual([pid]);
  expect(findMarked(needle)).toEqual([pid]);
  expect(findMarked(markerEntry(`${value}-other`), pid)).toEqual([other.pid]);
  child.kill("SIGKILL");
  await vi.waitFor(() => expect(findMarked(needle, pid)).toEqual([]), WAIT);
});
