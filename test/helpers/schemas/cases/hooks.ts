/** Cases of `hooks install`, `hooks uninstall`, `hooks status` and `hooks test` (each in the case's own temp folder). */
import { expect } from 'vitest';
import type { ResultCase } from '../case.js';
import { hf, ok } from './setup.js';

export const HOOKS_CASES: ResultCase[] = [
  {
    verb: 'hooks install',
    schema: 'hooks-change',
    name: 'a dry run prints the diff and writes nothing',
    exit: 0,
    produce: (home) => hf(home, ['hooks', 'install', '--harness', 'claude', '--dry-run', '--json'], { env: { HOME: home } }),
    expect: (j) => expect([j.action, j.dry_run, j.diff.startsWith('--- /dev/null')]).toEqual(['created', true, true]),
    wrong: { 'an unknown action': (j) => ({ ...j, action: 'merged' }) },
  },
  {
    verb: 'hooks install',
    schema: 'error',
    name: 'an unknown harness: USAGE',
    exit: 2,
    produce: (home) => hf(home, ['hooks', 'install', '--harness', 'vim', '--json'], { env: { HOME: home } }),
    expect: (j) => expect(j.code).toBe('USAGE'),
  },
  {
    verb: 'hooks uninstall',
    schema: 'hooks-change',
    name: 'an installed gate removed',
    exit: 0,
    produce: (home) => {
      ok(home, ['hooks', 'install', '--harness', 'cursor', '--json'], { env: { HOME: home } });
      return hf(home, ['hooks', 'uninstall', '--harness', 'cursor', '--json'], { env: { HOME: home } });
    },
    expect: (j) => expect([j.action, j.commands]).toEqual(['removed', []]),
  },
  {
    verb: 'hooks uninstall',
    schema: 'error',
    name: 'no --harness: USAGE',
    exit: 2,
    produce: (home) => hf(home, ['hooks', 'uninstall', '--json'], { env: { HOME: home } }),
    expect: (j) => expect(j.code).toBe('USAGE'),
  },
  {
    verb: 'hooks status',
    schema: 'hooks-status',
    name: 'every harness and scope',
    exit: 0,
    produce: (home) => hf(home, ['hooks', 'status', '--json'], { env: { HOME: home } }),
    expect: (j) => expect(j.hooks.length).toBe(13),
    wrong: { 'a hook without its path': (j) => ({ ...j, hooks: [{ ...j.hooks[0], path: undefined }] }) },
  },
  {
    verb: 'hooks test',
    schema: 'hooks-test',
    name: 'the installed Cursor hook on a turn naming no contract: allowed, nothing written',
    exit: 0,
    produce: (home) => {
      ok(home, ['hooks', 'install', '--harness', 'cursor', '--json'], { env: { HOME: home } });
      return hf(home, ['hooks', 'test', '--harness', 'cursor', '--json'], { env: { HOME: home } });
    },
    expect: (j) => expect([j.answered, j.answer.exit, j.verdict.decision, j.verdict.dry_run]).toEqual([true, 0, 'allow', true]),
    wrong: { 'a verdict that is not one': (j) => ({ ...j, verdict: { decision: 'maybe' } }) },
  },
  {
    verb: 'hooks test',
    schema: 'error',
    name: 'nothing installed: HOOK_NOT_INSTALLED',
    exit: 1,
    produce: (home) => hf(home, ['hooks', 'test', '--harness', 'claude', '--json'], { env: { HOME: home } }),
    expect: (j) => expect(j.code).toBe('HOOK_NOT_INSTALLED'),
  },
  {
    verb: 'hooks status',
    schema: 'error',
    name: 'an unknown harness: USAGE',
    exit: 2,
    produce: (home) => hf(home, ['hooks', 'status', '--harness', 'vim', '--json'], { env: { HOME: home } }),
    expect: (j) => expect(j.code).toBe('USAGE'),
  },
];
