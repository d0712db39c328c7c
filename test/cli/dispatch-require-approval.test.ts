import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { run, tempHome } from '../helpers/cli.js';
import { dispatchJson, row, WS_FLAGS } from '../helpers/gate.js';
import { COMPLETE_PATCH, finalizeAs } from '../helpers/gate.js';

describe('contract dispatch --require-approval', () => {
  it('stores the patterns, prints the require_approval line and its close rule, and adds the project default', () => {
    const home = tempHome();
    const r = run(
      home,
      [
        'contract',
        'dispatch',
        ...WS_FLAGS,
        '--goal',
        'Ship it',
        '--require-approval',
        'Bash(git push *)',
        '--require-approval',
        'Write(migrations/**)',
        '--json',
      ],
      { env: { HANDOFF_APPROVAL_PATTERNS: 'mcp__*__deploy; Bash(git push *)' } },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = r.json;
    const want = ['Bash(git push *)', 'Write(migrations/**)', 'mcp__*__deploy'];
    expect(out.bindings.require_approval).toEqual(want);
    expect(out.contract_block).toContain(`\nrequire_approval: ${want.join('; ')}\n`);
    expect(out.close_rules.map((c: any) => c.id)).toContain('require_approval');
    expect(out.close_rules.find((c: any) => c.id === 'require_approval').text).toContain('handoff approval wait');
    expect(JSON.parse(row(home, out.contract_id).require_approval_json)).toEqual(want);
  });

  it('without patterns: no line, no rule, a null column', () => {
    const home = tempHome();
    const out = dispatchJson(home, ['--goal', 'g']);
    expect(out.bindings.require_approval).toBeNull();
    expect(out.contract_block).not.toContain('require_approval');
    expect(row(home, out.contract_id).require_approval_json).toBeNull();
  });

  it.each([
    [['--require-approval', 'Read(secrets/**)'], {}],
    [['--require-approval', 'Bash()'], {}],
    [[], { HANDOFF_APPROVAL_PATTERNS: 'Bash(x); Fetch(y)' }],
  ])('an unknown class %j is APPROVAL_PATTERN_INVALID, exit 2, nothing written', (flags, env) => {
    const home = tempHome();
    const r = run(home, ['contract', 'dispatch', ...WS_FLAGS, '--goal', 'g', ...flags, '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json?.code ?? r.stdout + r.stderr).toMatch(/APPROVAL_PATTERN_INVALID/);
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
    expect(existsSync(join(home, 'drafts')) ? readdirSync(join(home, 'drafts')) : []).toEqual([]);
  });

  it('a continuation inherits the patterns', () => {
    const home = tempHome();
    const out = dispatchJson(home, ['--goal', 'g', '--require-approval', 'Bash(git push *)']);
    finalizeAs(home, out.contract_id, 'COMPLETE', COMPLETE_PATCH);
    const r = run(home, [
      'contract',
      'add',
      'evidence_report.commands_run',
      'late',
      '--draft-id',
      out.contract_id,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const link = r.json.continuation.contract_id as string;
    expect(JSON.parse(row(home, link).require_approval_json)).toEqual(['Bash(git push *)']);
  });
});
