/**
 * evidence_run takes `command` as docs/mcp.md says: an argv array (no shell), or one string with `shell: true`. A
 * string without `shell: true`, an empty array, and several words with `shell: true` are USAGE worded for the tool.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { snapshot, tempHome } from '../helpers/cli.js';
import { connect, textOf, type McpSession } from '../helpers/mcp.js';

const D = 'a0123456789abcdef.0123456789ab';
const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function open(): Promise<{ s: McpSession; home: string }> {
  const home = tempHome();
  const s = await connect(home, ['--allow-run'], { HANDOFF_WORKSPACE: 'ws' });
  sessions.push(s);
  expect((await s.call('contract_init', { draft_id: D })).isError).toBe(false);
  return { s, home };
}

describe('evidence_run command', () => {
  it('a shell string with shell: true runs through /bin/sh -c and is recorded as one shell command', async () => {
    const { s } = await open();
    const r = await s.call('evidence_run', { command: 'echo one && echo two | tr a-z A-Z', shell: true, draft_id: D });
    expect(r.isError, textOf(r)).toBe(false);
    expect(r.structuredContent?.receipt).toMatchObject({
      shell: true,
      argv: ['echo one && echo two | tr a-z A-Z'],
      command: 'echo one && echo two | tr a-z A-Z',
      outcome: 'pass',
    });
    expect(textOf(r)).toContain('one\nTWO');
  });

  it('an argv array runs without a shell; a one-string array with shell: true is the same shell command', async () => {
    const { s } = await open();
    const argv = await s.call('evidence_run', { command: ['echo', '$HOME'], draft_id: D });
    expect(argv.structuredContent?.receipt).toMatchObject({ shell: false, argv: ['echo', '$HOME'] });
    expect(textOf(argv)).toContain('$HOME');
    const one = await s.call('evidence_run', { command: ['exit 3'], shell: true, draft_id: D });
    expect(one.structuredContent?.receipt).toMatchObject({ shell: true, exit_code: 3, outcome: 'unproven' });
  });

  it.each([
    ['a string without shell: true', { command: 'npm test' }, 'shell: true'],
    ['an empty array', { command: [] }, 'at least one word'],
    ['several words with shell: true', { command: ['npm', 'test'], shell: true }, 'one shell string'],
    ['a blank shell string', { command: '  ', shell: true }, 'non-blank'],
  ])('%s is USAGE and runs nothing', async (_what, args, says) => {
    const { s, home } = await open();
    const before = snapshot(home);
    const r = await s.call('evidence_run', { ...args, draft_id: D });
    expect(r.structuredContent).toMatchObject({ status: 'error', code: 'USAGE' });
    expect(r.structuredContent?.error).toContain(says);
    expect(snapshot(home)).toEqual(before);
  });
});
