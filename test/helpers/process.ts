/** Process checks shared by the receipt tests (unit and CLI). */
import { readFileSync } from 'node:fs';

/** A process is gone when kill(0) fails, or it is a zombie nobody has reaped yet. */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/**
 * Resolves once `pid` is gone (killed processes die asynchronously). No timing assertion: a process that never goes
 * away makes the test time out, which is the failure.
 */
export async function waitGone(pid: number): Promise<void> {
  while (!processGone(pid)) await new Promise((res) => setTimeout(res, 20));
}
