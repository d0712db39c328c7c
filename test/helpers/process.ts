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
