/**
 * Starts one real harness headless: stdin /dev/null, its own process group (killed whole on timeout), an
 * environment built from nothing (recipes.ts), and the harness binaries from the cache scripts/harnesses/install.mjs
 * filled. The call is asynchronous on purpose: the fake model server answers from this same process.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECIPES, baseHarnessEnv, type HarnessName, type RunDirs } from './recipes.js';

/** A budget that only catches a hang: a harness turn here takes seconds. */
export const RUN_TIMEOUT_MS = 240_000;

export interface HarnessRun {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The binaries, from the environment the runner sets (scripts/harnesses/run.mjs). */
export function harnessBin(harness: HarnessName): string {
  const dir = process.env.HANDOFF_HARNESS_BIN_DIR;
  if (!dir) throw new Error('HANDOFF_HARNESS_BIN_DIR is not set: run the suite with `npm run test:harnesses`');
  return join(dir, harness);
}

/** Fresh folders for one run; the project is a git repository (Codex runs inside one). */
export function runDirs(harness: HarnessName): RunDirs {
  const root = mkdtempSync(join(tmpdir(), `handoff-${harness}-`));
  const dirs: RunDirs = {
    root,
    home: join(root, 'home'),
    project: join(root, 'project'),
    codexHome: join(root, 'codex-home'),
  };
  for (const d of [dirs.home, dirs.project, join(root, 'tmp')]) mkdirSync(d, { recursive: true });
  const git = spawnSync('git', ['init', '-q', dirs.project], { encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr}`);
  return dirs;
}

/**
 * The harness starts with its files prepared (recipe.prepare) and the gate installed: the caller's steps. `argv`
 * replaces the recipe's (a run that lets the model use a tool passes the harness's own flag for that).
 */
export function driveHarness(
  harness: HarnessName,
  dirs: RunDirs,
  modelUrl: string,
  prompt: string,
  extraEnv: Record<string, string>,
  argv: string[] = RECIPES[harness].argv(prompt),
): Promise<HarnessRun> {
  const recipe = RECIPES[harness];
  const env = { ...baseHarnessEnv(dirs), ...recipe.env(dirs, modelUrl), ...extraEnv };
  const started = Date.now();
  const child = spawn(harnessBin(harness), argv, {
    cwd: dirs.project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, RUN_TIMEOUT_MS);
  return new Promise((done, fail) => {
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever the harness left behind in its group (a helper, a daemon) goes with it.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // nothing left
      }
      done({
        code,
        signal,
        timedOut,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Date.now() - started,
      });
    });
  });
}
