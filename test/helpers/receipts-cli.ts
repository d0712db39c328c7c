/** Helpers of the receipt CLI tests: homes, git repos, drafts, receipts and closes through the built binary. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { BIN, run, tempHome, type RunOptions, type RunResult } from './cli.js';

export { snapshot } from './cli.js';

export const WS = 'ws';
export const NODE = process.execPath;

/** Runs handoff with HANDOFF_WORKSPACE=ws (the temp folders' names are not all slugs). */
export const hf = (home: string, args: string[], opts: RunOptions = {}): RunResult =>
  run(home, args, { ...opts, env: { HANDOFF_WORKSPACE: WS, ...opts.env } });

/** Raw bytes of a run (for byte-exact pass-through checks). */
export function hfRaw(home: string, args: string[], cwd = home): { code: number; stdout: Buffer; stderr: Buffer } {
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: WS };
  delete env.HANDOFF_DB;
  const r = spawnSync(NODE, [BIN, ...args], { env, cwd, input: '', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });

/** A git work tree with one commit, outside the handoff home. */
export function gitRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-repo-'));
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'app.js'), 'console.log(1)\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'init');
  return dir;
}

export function newDraft(home: string): string {
  const r = hf(home, ['contract', 'init', '--json']);
  expect(r.code).toBe(0);
  return r.json.draft_id as string;
}

/** `evidence run --json --draft-id D -- argv`; returns the result and the receipt object. */
export function receipt(home: string, draftId: string, argv: string[], opts: RunOptions & { flags?: string[] } = {}) {
  const r = hf(home, ['evidence', 'run', '--json', '--draft-id', draftId, ...(opts.flags ?? []), '--', ...argv], opts);
  return { r, receipt: r.json?.receipt as Record<string, any> };
}

/** A node one-liner as argv. */
export const nodeCmd = (script: string): string[] => [NODE, '-e', script];

/** Fills a close (COMPLETE by default) with the given verification into the draft (no finalize). */
export function fillClose(
  home: string,
  draftId: string,
  verification: Record<string, unknown>,
  opts: { state?: string; cwd?: string } = {},
): void {
  const state = opts.state ?? 'COMPLETE';
  const patch = {
    agent_status: { agent_state: state, next_action: state === 'COMPLETE' ? 'done' : 'review' },
    evidence_report: { verification },
  };
  const fill = hf(home, ['contract', 'fill', '--draft-id', draftId, '--json', JSON.stringify(patch)], {
    cwd: opts.cwd,
  });
  expect(fill.code, fill.stdout + fill.stderr).toBe(0);
}

/** fillClose, then finalize; returns the finalize result. */
export function closeWith(
  home: string,
  draftId: string,
  verification: Record<string, unknown>,
  opts: { state?: string; flags?: string[]; cwd?: string } = {},
) {
  fillClose(home, draftId, verification, opts);
  return hf(home, ['contract', 'finalize', '--draft-id', draftId, '--json', ...(opts.flags ?? [])], { cwd: opts.cwd });
}

export const freshHome = (): string => tempHome('handoff-receipts-');
