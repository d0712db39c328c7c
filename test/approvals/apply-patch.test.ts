/**
 * Codex's apply_patch tool in the pre-tool gate's input mapping: the files its patch headers name, relative to the
 * repository root of the hook's cwd, in the neutral Write/Edit classes that Write(…)/Edit(…) patterns match.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { matches, parsePattern } from '../../src/approvals/patterns.js';
import { neutralCall, parseToolCall } from '../../src/approvals/pre-tool-input.js';

/** A repository with a sub folder: the hook's cwd is the sub folder, paths come back relative to the root. */
function repo(): { root: string; sub: string } {
  const root = tempHome();
  mkdirSync(join(root, '.git'), { recursive: true });
  writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n'); // a repository, as git judges one
  const sub = join(root, 'pkg');
  mkdirSync(sub);
  return { root, sub };
}

const codexCall = (cwd: string, toolInput: Record<string, unknown>) =>
  parseToolCall(
    JSON.stringify({
      hook_event_name: 'PreToolUse',
      session_id: 's',
      turn_id: 't',
      cwd,
      tool_name: 'apply_patch',
      tool_input: toolInput,
      tool_use_id: 'call_1',
    }),
  );

const patch = (...body: string[]): string => ['*** Begin Patch', ...body, '*** End Patch', ''].join('\n');

describe('apply_patch in the neutral classes', () => {
  it('a patch that only adds files is Write, of each added path relative to the repository root', () => {
    const r = repo();
    const call = codexCall(r.sub, {
      input: patch('*** Add File: migrations/0009_x.sql', '+CREATE TABLE x (id INT);', '*** Add File: b.txt', '+b'),
    });
    expect(call.harness).toBe('codex');
    expect(neutralCall(call, r.sub)).toEqual({
      cls: 'Write',
      path: 'pkg/migrations/0009_x.sql',
      more: ['pkg/b.txt'],
    });
  });

  it('an update, a delete or a move is Edit; the patch may sit in command (a string or an argv) or patch', () => {
    const r = repo();
    const update = patch('*** Update File: src/a.ts', '@@', '-a', '+b', '*** Move to: src/c.ts');
    expect(neutralCall(codexCall(r.root, { command: update }), r.root)).toEqual({
      cls: 'Edit',
      path: 'src/a.ts',
      more: ['src/c.ts'],
    });
    const del = patch('*** Delete File: /x/outside.txt');
    expect(neutralCall(codexCall(r.root, { command: ['apply_patch', del] }), r.root)).toMatchObject({ cls: 'Edit' });
    expect(neutralCall(codexCall(r.root, { patch: patch('*** Add File: n.md', '+n') }), r.root)).toEqual({
      cls: 'Write',
      path: 'n.md',
    });
  });

  it('a Write(…) or Edit(…) pattern matches when any file of the patch does', () => {
    const r = repo();
    const n = neutralCall(
      codexCall(r.root, {
        input: patch('*** Update File: README.md', '@@', '-a', '+b', '*** Add File: migrations/1.sql', '+x'),
      }),
      r.root,
    );
    expect(matches(parsePattern('Write(migrations/**)'), n)).toBe(true);
    expect(matches(parsePattern('Edit(migrations/**)'), n)).toBe(true);
    expect(matches(parsePattern('Write(src/**)'), n)).toBe(false);
  });

  it('a patch naming no file, or no patch text at all, is not a file call (no pattern matches it)', () => {
    const r = repo();
    expect(neutralCall(codexCall(r.root, { input: 'not a patch' }), r.root)).toEqual({
      cls: 'other',
      tool: 'apply_patch',
    });
    expect(neutralCall(codexCall(r.root, {}), r.root)).toEqual({ cls: 'other', tool: 'apply_patch' });
  });
});
