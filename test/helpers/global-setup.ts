/**
 * Every temp dir a test makes (HANDOFF_HOME roots, fixtures) goes below one folder per run, removed afterwards, so
 * the suite leaves nothing in the machine's temp dir. That folder is made where suiteTempBase says (in memory when the
 * machine allows). Workers inherit TMPDIR from this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suiteTempBase } from './temp-base.js';

export default function setup(): () => void {
  const root = mkdtempSync(join(suiteTempBase(), 'handoff-suite-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
