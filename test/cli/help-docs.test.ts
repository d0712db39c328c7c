import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, run, tempHome } from '../helpers/cli.js';
import { verbIds } from '../helpers/commands.js';

const bundle = createRequire(import.meta.url)(join(REPO, 'dist', 'cli', 'handoff.cjs')) as {
  commandsDoc(): Promise<string>;
};

describe('--help and the command reference', () => {
  it('docs/commands.md is exactly what the oclif command classes render (npm run docs:commands)', async () => {
    expect(readFileSync(join(REPO, 'docs', 'commands.md'), 'utf8')).toBe(await bundle.commandsDoc());
  });

  it.each(verbIds().filter((id) => id !== 'help'))('docs/commands.md holds the --help page of %s', (id) => {
    const r = run(tempHome(), [...id.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`$ handoff ${id}`);
    expect(readFileSync(join(REPO, 'docs', 'commands.md'), 'utf8')).toContain(
      `## handoff ${id}\n\n\`\`\`text\n${r.stdout.trimEnd()}\n\`\`\``,
    );
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
