import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderCommandsDoc } from '../../src/cli/commands-doc.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { REPO, run, tempHome } from '../helpers/cli.js';

describe('--help and the command reference', () => {
  it('docs/commands.md is exactly what the definitions render (npm run docs:commands)', async () => {
    expect(readFileSync(join(REPO, 'docs', 'commands.md'), 'utf8')).toBe(await renderCommandsDoc());
  });

  it.each(Object.keys(COMMANDS))('handoff %s --help shows its usage and the exit-code table', (id) => {
    const r = run(tempHome(), [...id.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: handoff ${id}`);
    if (id === 'contract gate') expect(r.stdout).toContain('2 block');
    else expect(r.stdout).toMatch(/Exit codes:\n {2}0 {3}success[^]*\n {2}70 {2}internal error/);
  });

  it('an unknown verb or flag is USAGE, exit 2, one line, in both modes', () => {
    const home = tempHome();
    const human = run(home, ['contract', 'frobnicate']);
    expect(human.code).toBe(2);
    expect(human.stderr.trim().split('\n')).toHaveLength(1);
    const json = run(home, ['contract', 'view', '--no-such-flag', '--json']);
    expect(json.code).toBe(2);
    expect(json.json).toMatchObject({ status: 'error', code: 'USAGE' });
  });
});
