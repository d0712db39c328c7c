/**
 * The gate's watchdog thread (src/gate/watchdog.ts) answers when the main thread is stuck in a synchronous wait past
 * the budget: it writes the fallback answer itself and ends the process with its exit code through WASI's proc_exit.
 * Driven here for real, on whichever Node runs the suite (`npm run test:node -- MAJOR` runs this
 * file on each supported major): the main thread blocked on a SQLite write lock another process holds, and on a FIFO
 * that no writer ever opens. A process the watchdog did not end would be killed by the hang guard instead (no exit
 * code, SIGKILL), and that is a failure.
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, REPO, baseEnv, tempHome } from '../helpers/cli.js';

/** A hang is a failure: the child is killed after this long (a hang guard, not a speed bar). */
const HANG_MS = 60_000;
const DRIVER = join(FIXTURES, 'watchdog-driver.mjs');
const BUDGET_MS = 1500;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function drive(mode: string, target: string, home: string): Promise<Ended> {
  return new Promise((done) => {
    // --no-warnings: Node 22 announces its type stripping.
    const child = spawn(process.execPath, ['--no-warnings', DRIVER, mode, target, String(BUDGET_MS)], {
      env: baseEnv(home),
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      done({ code, signal, stdout, stderr });
    });
  });
}

const ANSWERED = {
  code: 2,
  signal: null,
  stdout: 'armed\n{"decision":"block","from":"watchdog"}\n',
  stderr: 'handoff: the gate answered at its budget\n',
};

describe("the watchdog answers for a main thread stuck past the budget, with the answer's exit code", () => {
  it('a SQLite write waiting on a lock another process holds', async () => {
    const home = tempHome();
    const db = join(home, 'handoff.db');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D=require('better-sqlite3');const db=new D(${JSON.stringify(db)});db.exec('CREATE TABLE t(x)');db.exec('BEGIN IMMEDIATE');console.log('locked');setTimeout(()=>{},${HANG_MS});`,
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((res) =>
        holder.stdout.on('data', (b: Buffer) => b.toString().includes('locked') && res()),
      );
      expect(await drive('sqlite', db, home)).toEqual(ANSWERED);
    } finally {
      holder.kill();
    }
  });

  it('a read of a FIFO that never returns (no writer ever opens it)', async () => {
    const home = tempHome();
    const fifo = join(home, 'hook-input');
    execFileSync('mkfifo', [fifo]);
    expect(await drive('fifo', fifo, home)).toEqual(ANSWERED);
  });
});
