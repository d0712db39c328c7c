/**
 * The README's quickstart runs as written: every `handoff …` line of its code block, in order, in a temporary
 * HANDOFF_HOME and a throw-away project folder (whose `npm test` passes). The two placeholders are filled from the
 * output of the command that prints them (`D=<draft_id printed by init>`, `R-…`); a line followed by a
 * `# -> Rejected: CODES` comment must be rejected with exactly those codes, every other line must exit 0.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, run, tempHome } from '../helpers/cli.js';

interface Step {
  args: string[];
  rejected?: string[];
}

/** The fenced block under `## Quickstart`. */
function quickstartBlock(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quickstart'));
  const m = /```bash\n([^]*?)```/.exec(section);
  if (m === null) throw new Error('README has no quickstart code block');
  return m[1];
}

/** Shell words of one command line: single and double quotes, `$D` kept for later substitution. */
function words(line: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === ' ') {
      if (cur !== undefined) out.push(cur);
      cur = undefined;
    } else cur = (cur ?? '') + c;
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

/** Logical lines (a quote left open continues on the next line), comments outside quotes cut off. */
function steps(block: string): Step[] {
  const out: Step[] = [];
  let pending = '';
  for (const raw of block.split('\n')) {
    if (pending === '' && raw.trim().startsWith('#')) {
      const rejected = /^#\s+-> Rejected: ([A-Z_, ]+?) \(/.exec(raw.trim());
      if (rejected !== null && out.length > 0) out[out.length - 1].rejected = rejected[1].split(', ');
      continue;
    }
    const text = pending === '' ? raw : `${pending}\n${raw}`;
    if ((text.match(/'/g) ?? []).length % 2 === 1) {
      pending = text;
      continue;
    }
    pending = '';
    const code = text.replace(/\s+#(?=[^']*$).*$/, '').trim();
    if (code.startsWith('handoff ')) out.push({ args: words(code).slice(1) });
  }
  return out;
}

describe('README quickstart', () => {
  it('runs as written', () => {
    const home = tempHome();
    const project = mkdtempSync(join(tmpdir(), 'quickstart-project-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'quickstart-project', private: true, scripts: { test: 'node -e 0' } }));
    const list = steps(quickstartBlock());
    expect(list.map((s) => s.args.slice(0, 2).join(' '))).toEqual([
      'contract init',
      'contract set',
      'contract add',
      'contract set',
      'evidence run',
      'contract fill',
      'contract set',
      'contract set',
      'contract finalize',
      'contract list',
    ]);
    let draftId = '';
    let receiptId = '';
    for (const step of list) {
      const args = step.args.map((a) => a.replace('$D', draftId).replace('R-…', receiptId));
      const r = run(home, args, { cwd: project, timeout: 120_000 });
      const what = `handoff ${args.join(' ')}\n${r.stdout}${r.stderr}`;
      if (step.rejected !== undefined) {
        expect(r.code, what).toBe(1);
        const codes = [...r.stderr.matchAll(/^ {2}([A-Z_]+) \[/gm)].map((m) => m[1]);
        expect(codes, what).toEqual(step.rejected);
      } else {
        expect(r.code, what).toBe(0);
      }
      draftId ||= /^draft_id: (\S+)$/m.exec(r.stdout)?.[1] ?? '';
      receiptId ||= /Receipt (R-[0-9a-f]{16}) recorded: exit=0 outcome=pass/.exec(r.stderr)?.[1] ?? '';
    }
    expect(draftId).not.toBe('');
    expect(receiptId).not.toBe('');
    const listed = run(home, ['contract', 'list', '--json'], { cwd: project });
    expect(listed.json.handoffs).toMatchObject([{ contract_id: draftId, agent_state: 'COMPLETE' }]);
  });
});
